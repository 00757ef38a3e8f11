//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

func isLinkError(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// checkDir refuses a state directory that someone else owns or that group or others may write to.
func checkDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if m := info.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by its group or by others (mode %#o); make it private: chmod 700 %s", ErrUnsafe, dir, m, dir)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to user id %d, not to you (%d); choose a directory of your own with --state-dir", ErrUnsafe, dir, st.Uid, os.Geteuid())
	}
	return nil
}

// checkPrivate refuses a secret file that its group or others can read or write.
func checkPrivate(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if m := info.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("%w: %s is readable or writable by others (mode %#o); make it private: chmod 600 %s", ErrUnsafe, path, m, path)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil // a file system that cannot sync a directory: nothing more to do
	}
	return errors.Join(err, d.Close())
}

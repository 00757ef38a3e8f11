//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

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

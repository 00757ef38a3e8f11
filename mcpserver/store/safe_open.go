package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The state directory holds the sealing key and every monitor's position: nobody else may write
// into it, and nothing in it is opened through a symbolic link (a link planted there could make
// the server write over, or read back, a file elsewhere). Open refuses a directory that others can
// write to or that belongs to someone else (checkDir, per platform); every file is opened with
// openFile, which refuses a link. docs/security.md, "The state directory".

// ErrUnsafe is wrapped by the errors about a state directory or a file in it that prmonitor
// refuses to use: writable by others, owned by someone else, or a symbolic link.
var ErrUnsafe = errors.New("unsafe state directory")

// openFile opens path, a file of the state directory, without following a symbolic link.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := refuseLink(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil && isLinkError(err) {
		return nil, linkError(path)
	}
	return f, err
}

// readFile reads path, a file of the state directory, without following a symbolic link.
func readFile(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func linkError(path string) error {
	return fmt.Errorf("%w: %s is a symbolic link; prmonitor never follows links in its state directory (remove it)", ErrUnsafe, path)
}

// refuseLink reports a symbolic link at path where the platform cannot refuse it while opening
// (noFollow is 0): a check before the open, which the directory's permissions keep honest.
func refuseLink(path string) error {
	if noFollow != 0 {
		return nil
	}
	info, err := os.Lstat(path)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	return nil
}

// Secret returns the content of the state directory's file name, size random bytes created (0600)
// on first use: the key that seals request states. A file that is not private to the user, or a
// link, is refused; one of another size is replaced.
func (s *Store) Secret(name string, size int) ([]byte, error) {
	path := filepath.Join(s.dir, name)
	f, err := openFile(path, os.O_RDONLY, 0)
	switch {
	case err == nil:
		defer f.Close()
		if err := checkPrivate(f, path); err != nil {
			return nil, err
		}
		key, err := io.ReadAll(io.LimitReader(f, int64(size)+1))
		if err != nil {
			return nil, fmt.Errorf("store: read %s: %w", name, err)
		}
		if len(key) == size {
			return key, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("store: read %s: %w", name, err)
	}
	key := make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("store: make %s: %w", name, err)
	}
	if err := s.writeAtomic(path, key); err != nil { // a new file: 0600, replacing whatever was there
		return nil, fmt.Errorf("store: write %s: %w", name, err)
	}
	return key, nil
}

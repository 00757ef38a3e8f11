package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"
)

// fileChange is one file setup changes: created (before nil), rewritten, or deleted (after nil).
type fileChange struct {
	path          string
	before, after []byte
	what          string // what the change does, said in the report: "registered the MCP server"
}

// readFile reads a file setup may change; a missing file is (nil, nil).
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// diff is the change as a unified diff, what --dry-run prints.
func (c fileChange) diff() (string, error) {
	from, to := c.path, c.path
	if c.before == nil {
		from = "/dev/null"
	}
	if c.after == nil {
		to = "/dev/null"
	}
	old := string(c.before)
	return udiff.ToUnified(from, to, old, udiff.Lines(old, string(c.after)), udiff.DefaultContextLines)
}

// apply carries the change out. A file that exists is first copied beside itself
// (NAME.prmonitor-TIME.bak, same permissions); the new content replaces it in one rename, so a
// crash leaves the old file or the new one, never half of either. A symbolic link (dotfiles kept
// in a repository) is followed: its target is changed, the link stays. It returns the backup's
// path ("" when there was nothing to back up).
func (c fileChange) apply(now time.Time) (backup string, err error) {
	target := c.path
	if real, err := filepath.EvalSymlinks(c.path); err == nil {
		target = real
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(target); err == nil {
		mode = info.Mode().Perm()
	}
	if c.before != nil && c.after != nil {
		if backup, err = writeBackup(target, c.before, mode, now); err != nil {
			return "", err
		}
	}
	if c.after == nil {
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return backup, err
		}
		if dir := filepath.Dir(target); filepath.Base(dir) == serverName {
			_ = os.Remove(dir) // the skill's own folder, when it is left empty
		}
		return backup, nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return backup, err
	}
	return backup, replaceFile(target, c.after, mode)
}

// writeBackup copies the old content beside path, under a name no other file has.
func writeBackup(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	for i := 1; i < 100; i++ {
		name := fmt.Sprintf("%s.prmonitor-%s.bak", path, stamp)
		if i > 1 {
			name = fmt.Sprintf("%s.prmonitor-%s-%d.bak", path, stamp, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
			_ = os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups named %s.prmonitor-%s*.bak", path, path, stamp)
}

// replaceFile writes data to a temporary file beside path and renames it over path.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".prmonitor-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// fsOps are the steps of an atomic write that can fail after the data is written; tests replace
// them to interrupt a save at each point.
type fsOps struct {
	sync    func(*os.File) error
	rename  func(oldpath, newpath string) error
	syncDir func(dir string) error
}

func osFS() fsOps {
	return fsOps{sync: (*os.File).Sync, rename: rename, syncDir: syncDir}
}

// writeAtomic replaces path with data (mode 0600): a temporary file in the same directory,
// written and synced, renamed over path, then the directory synced so that the rename itself
// survives a crash. At every point a crash leaves either the old file or the new one, never a
// torn one; a failed write removes its temporary file, and Claim removes those a crash left.
//
// google/renameio does the first half of this but does not sync the directory, and its Windows
// fallback writes in place; this is short enough to own, and it gives the tests their seams.
func (s *Store) writeAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+tempMarker+"*") // created 0600
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	fail := func(step string, err error) error {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("%s %s: %w", step, filepath.Base(tmp), err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := s.fs.sync(f); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		return fail("close", err)
	}
	if err := s.fs.rename(tmp, path); err != nil {
		return fail("rename", err)
	}
	// The new file is in place; only its durability across a power cut is in doubt.
	if err := s.fs.syncDir(dir); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

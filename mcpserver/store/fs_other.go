//go:build !unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// rename replaces newpath with oldpath. On Windows os.Rename is MoveFileEx with
// MOVEFILE_REPLACE_EXISTING: atomic enough on NTFS, but it fails while another process (a
// virus scanner, an indexer, a reader) has the target open, so a few short retries ride that out.
func rename(oldpath, newpath string) error {
	var err error
	for wait := 5 * time.Millisecond; wait <= 320*time.Millisecond; wait *= 2 {
		if err = os.Rename(oldpath, newpath); err == nil || errors.Is(err, fs.ErrNotExist) {
			return err
		}
		time.Sleep(wait)
	}
	return err
}

// syncDir does nothing: Windows cannot open a directory for syncing, and NTFS journals renames.
func syncDir(string) error { return nil }

// noFollow is 0: the platform has no flag to refuse a link while opening, so openFile checks for
// one first (refuseLink).
const noFollow = 0

func isLinkError(error) bool { return false }

// checkDir checks nothing on Windows: access is governed by ACLs, and the default state directory
// (under %LOCALAPPDATA%) is the user's own. docs/security.md says so.
func checkDir(string) error { return nil }

// checkPrivate checks nothing on Windows (ACLs, as checkDir).
func checkPrivate(*os.File, string) error { return nil }

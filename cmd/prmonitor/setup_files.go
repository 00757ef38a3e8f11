package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// fileChange is one file setup changes: created (before nil), rewritten, or deleted (after nil).
type fileChange struct {
	path          string
	before, after []byte
	// verb and object say what the change does, as done ("registered the MCP server …") or, in a
	// dry run, as it would be ("would register the MCP server …").
	verb, object string
	// backup: the file holds something of the user's; before setup first changes it, it is copied
	// to backupPath, and that copy is kept (one per file, whatever the later runs).
	backup bool
	// dropBackup: the file's backup goes once the change is made: it was an older version of
	// setup's own file, deleted with it, or the user's file, now put back.
	dropBackup bool
	// prune: when the file is deleted, the folders on its way that are left empty go too, up to
	// this one (not included): setup made them.
	prune string
	// workspace: the file is in this project, where no symbolic link is followed.
	workspace string
}

// pastTense is a change's verb as done.
var pastTense = map[string]string{"register": "registered", "update": "updated", "install": "installed", "remove": "removed"}

// done says what the change did.
func (c fileChange) done() string { return pastTense[c.verb] + " " + c.object }

// would says what the change would do.
func (c fileChange) would() string { return "would " + c.verb + " " + c.object }

// backupPath is where a file's one backup is kept.
func backupPath(path string) string { return path + ".prmonitor.bak" }

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

// noLinks refuses a path inside a workspace that goes through a symbolic link: a link checked
// into a repository could point at any file of the user's, and setup would write there.
func noLinks(workspace, path string) error {
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the workspace %s", path, workspace)
	}
	cur := workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing further exists yet: setup creates it
		}
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: setup follows none inside a workspace (it could point at any of "+
				"your files); replace it with a real file or folder, or add prmonitor by hand", cur)
		}
	}
	return nil
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

// applied is what carrying out a change left: the file's backup ("" when it has none) and the
// folders it removed.
type applied struct {
	backup  string
	removed []string
}

// apply carries the change out. A file that holds something of the user's is first copied to
// its backup, once; the new content replaces it in one rename, so a crash leaves the old file or
// the new one, never half of either. Outside a workspace a symbolic link (dotfiles kept in a
// repository) is followed: its target is changed, the link stays. A file setup creates is 0600.
func (c fileChange) apply(made *madeFolders) (applied, error) {
	var out applied
	target := c.path
	if c.workspace != "" {
		if err := noLinks(c.workspace, c.path); err != nil {
			return out, err
		}
	} else if real, err := filepath.EvalSymlinks(c.path); err == nil {
		target = real
	}
	mode := fs.FileMode(0o600)
	if info, err := os.Stat(target); err == nil {
		mode = info.Mode().Perm()
	}
	if c.after == nil {
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		if c.dropBackup {
			if err := os.Remove(backupPath(target)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, err
			}
		}
		out.removed = pruneEmpty(filepath.Dir(target), c.prune, made)
		return out, nil
	}
	if c.before != nil && c.backup {
		b, err := keepBackup(target, c.before, mode)
		if err != nil {
			return out, err
		}
		out.backup = b
	}
	created := missingDirs(filepath.Dir(target))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return out, err
	}
	made.add(created)
	if err := replaceFile(target, c.after, mode); err != nil {
		return out, err
	}
	if c.dropBackup { // its content is back in place
		if err := os.Remove(backupPath(target)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
	}
	return out, nil
}

// keepBackup copies the old content to the file's backup, unless a backup is there already: the
// one kept is the file as it was before setup first changed it.
func keepBackup(path string, data []byte, mode fs.FileMode) (string, error) {
	name := backupPath(path)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return name, nil
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

// pruneEmpty removes dir and the folders above it while setup made them and they are empty, up
// to stop (not included, nor anything outside it), and returns those it removed.
func pruneEmpty(dir, stop string, made *madeFolders) []string {
	var removed []string
	for stop != "" && dir != stop && within(stop, dir) && made.has(dir) {
		if os.Remove(dir) != nil { // not empty: stop here
			break
		}
		made.forget(dir)
		removed = append(removed, dir)
		dir = filepath.Dir(dir)
	}
	return removed
}

// wouldPrune is pruneEmpty for a dry run: the folders setup made that deleting the files gone
// would leave empty.
func wouldPrune(dir, stop string, gone map[string]bool, made *madeFolders) []string {
	var out []string
	for stop != "" && dir != stop && within(stop, dir) && made.has(dir) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			break
		}
		for _, e := range entries {
			if !gone[filepath.Join(dir, e.Name())] {
				return out
			}
		}
		out = append(out, dir)
		gone[dir] = true
		dir = filepath.Dir(dir)
	}
	return out
}

// within tells whether path is inside dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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

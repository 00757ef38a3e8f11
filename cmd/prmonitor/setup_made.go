package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// madeFolders are the folders setup created in the user's configuration, kept in prmonitor's
// state directory (setup-folders.json): --uninstall removes a folder left empty only when setup
// made it, never one that was there before (an empty ~/.copilot is how `setup all` tells Copilot
// CLI is installed). The record's own folders are in it too: once it lists nothing else it is
// deleted, and they go with it, so setup then --uninstall on a fresh machine leaves nothing behind.
// A workspace setup writes nothing outside the workspace, this record included: there a folder
// left empty goes, as git keeps no empty folder.
type madeFolders struct {
	path      string // the record; "" when no state directory is known (nothing is recorded)
	dirs      map[string]bool
	changed   bool
	workspace bool // every folder left empty in the workspace goes; nothing is recorded
}

// madeFoldersFile is the record's name in the state directory.
const madeFoldersFile = "setup-folders.json"

type madeFoldersJSON struct {
	Folders []string `json:"folders"`
}

// loadMadeFolders reads the record of the state directory l's environment names. Without a state
// directory, nothing is recorded (and --uninstall removes no folder); an unreadable record is an
// error, so that a run does not forget what an earlier one made.
func loadMadeFolders(l locator) (*madeFolders, error) {
	m := &madeFolders{dirs: map[string]bool{}}
	if l.workspace != "" {
		m.workspace = true
		return m, nil
	}
	dir, err := store.DefaultDir(l.getenv, l.goos)
	if err != nil {
		return m, nil
	}
	m.path = filepath.Join(dir, madeFoldersFile)
	data, err := readFile(m.path)
	if err != nil || data == nil {
		return m, err
	}
	var j madeFoldersJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%s: %w; delete it (setup then removes no folder it made) and run setup again", m.path, err)
	}
	for _, d := range j.Folders {
		m.dirs[d] = true
	}
	return m, nil
}

// has tells whether setup made dir.
func (m *madeFolders) has(dir string) bool { return m.workspace || m.dirs[dir] }

// add records folders setup just created.
func (m *madeFolders) add(dirs []string) {
	if m.workspace {
		return
	}
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if !m.dirs[d] {
			m.dirs[d], m.changed = true, true
		}
	}
}

// forget drops a folder setup removed from the record.
func (m *madeFolders) forget(dir string) {
	if m.dirs[dir] {
		delete(m.dirs, dir)
		m.changed = true
	}
}

// save writes the record when it changed; once it lists only its own folders, it is deleted and
// they are removed (those left empty).
func (m *madeFolders) save() error {
	if !m.changed || m.path == "" {
		return nil
	}
	own := filepath.Dir(m.path)
	if m.onlyOwn(own) {
		if err := os.Remove(m.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for d := own; m.dirs[d] && os.Remove(d) == nil; d = filepath.Dir(d) {
		}
		return nil
	}
	created := missingDirs(own)
	if err := os.MkdirAll(own, 0o700); err != nil {
		return err
	}
	m.add(created)
	j := madeFoldersJSON{Folders: make([]string, 0, len(m.dirs))}
	for d := range m.dirs {
		j.Folders = append(j.Folders, d)
	}
	slices.Sort(j.Folders)
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return replaceFile(m.path, append(data, '\n'), 0o600)
}

// onlyOwn tells whether every folder recorded is the record's own folder or one above it.
func (m *madeFolders) onlyOwn(own string) bool {
	for d := range m.dirs {
		if d != own && !within(d, own) {
			return false
		}
	}
	return true
}

// missingDirs are dir and the folders above it that do not exist yet: those os.MkdirAll(dir)
// creates.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

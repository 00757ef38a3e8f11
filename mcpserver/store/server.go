package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// A running server marks the state directory it serves: "server-<pid>.json" (0600), written when
// it starts serving and removed on every way it stops (its input closed, SIGTERM, SIGINT, an
// error). A server holds a monitor's lock only while it runs that monitor, so without the marker a
// server that has no monitor yet could not be seen. A server that was killed leaves its marker
// behind: a reader checks that the process still runs, as it does for a claim's pid (Holder).

// ServerSchema is the version of a server marker's layout.
const ServerSchema = 1

// serverPrefix and serverExt frame a marker's file name around the process id.
const (
	serverPrefix = "server-"
	serverExt    = ".json"
)

// serverName matches a marker's file name; its group is the pid.
var serverName = regexp.MustCompile(`^server-([1-9][0-9]{0,9})\.json$`)

// isServerMarker reports whether base (a file name without ".json") is a marker's: such a name is
// never a monitor's, whose readable part always holds the dots of OWNER/REPO#N.
func isServerMarker(base string) bool { return serverName.MatchString(base + serverExt) }

// Server is what a running server says of itself in its marker.
type Server struct {
	Schema int `json:"schema"`
	// PID is the server's process id; the file is named after it.
	PID int `json:"pid"`
	// StartedAt is when the server started serving.
	StartedAt time.Time `json:"started_at"`
	// Version is the build's version (prmonitor version).
	Version string `json:"version"`
	// API is the GitHub REST root the server watches through.
	API string `json:"api"`
}

// MarkServer writes this process's marker (its pid is the store's), replacing one a process of the
// same pid left. remove takes it away again: call it on every way the server stops. A marker that
// cannot be written is an error, and the server can go on without it (status then sees it only
// through the monitors it holds).
func (s *Store) MarkServer(version, api string) (remove func() error, err error) {
	m := Server{Schema: ServerSchema, PID: s.pid, StartedAt: s.stamp(), Version: version, API: api}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("store: server marker: %w", err)
	}
	path := filepath.Join(s.dir, serverPrefix+strconv.Itoa(s.pid)+serverExt)
	if err := s.writeAtomic(path, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("store: server marker: %w", err)
	}
	return func() error {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: remove the server marker: %w", err)
		}
		return nil
	}, nil
}

// ReadServers reads the server markers of the state directory dir, by pid, without a Store: it
// takes no lock and writes nothing, as a Reader. A marker that cannot be read or whose content
// does not match its name is left out (a server writes its marker atomically, so that is never
// one being written); the caller checks that each pid still runs. A directory that does not
// exist holds none.
func ReadServers(dir string) ([]Server, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", dir, err)
	}
	var out []Server
	for _, e := range entries {
		m := serverName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		data, err := readFile(filepath.Join(dir, e.Name()))
		if err != nil || len(data) > maxRecordBytes {
			continue
		}
		var sv Server
		if json.Unmarshal(data, &sv) != nil || sv.Schema != ServerSchema || sv.PID != pid {
			continue
		}
		out = append(out, sv)
	}
	slices.SortFunc(out, func(a, b Server) int { return a.PID - b.PID })
	return out, nil
}

// RemoveServers removes the markers of the servers gone tells are no longer running, and reports
// how many it removed: a server that starts tidies up after those that were killed.
func RemoveServers(dir string, gone func(pid int) bool) (int, error) {
	servers, err := ReadServers(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, sv := range servers {
		if !gone(sv.PID) {
			continue
		}
		err := os.Remove(filepath.Join(dir, serverPrefix+strconv.Itoa(sv.PID)+serverExt))
		switch {
		case err == nil:
			n++
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

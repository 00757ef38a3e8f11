package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// RecordSchema is the version of Record's layout. Bump it on an incompatible change: a record of
// any other version is set aside, never half-read.
const RecordSchema = 1

// maxRecordBytes bounds a record file; anything larger is not one this store wrote.
const maxRecordBytes = 32 << 20

// Record is what the store keeps for one monitor.
type Record struct {
	// Schema is RecordSchema; Save sets it.
	Schema    int            `json:"schema"`
	MonitorID string         `json:"monitor_id"`
	Ref       prstatus.PRRef `json:"ref"`
	// API is the REST root the pull request was monitored through (github.com, an Enterprise
	// Server, a fake), so a resumed monitor talks to the same GitHub.
	API       string    `json:"api"`
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the record was last saved; Save sets it.
	UpdatedAt     time.Time             `json:"updated_at"`
	Stopped       bool                  `json:"stopped"`
	StoppedReason string                `json:"stopped_reason,omitempty"`
	Position      statemachine.Position `json:"position"`
	// Pushed is what the agent was last told of the monitor's open action, so a restarted server
	// does not push it again (Pushed's doc).
	Pushed *Pushed `json:"pushed,omitempty"`
}

// Save replaces the monitor's record atomically: after a crash at any point the file holds the
// previous record or this one, never a mix. It needs the monitor's claim. It sets Schema and
// UpdatedAt, fills in an empty MonitorID and a zero CreatedAt, and refuses a record that Load
// would set aside (another monitor's, or a position of another version).
func (s *Store) Save(id string, r Record) error {
	c, err := s.held(id)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()

	if r.Schema != 0 && r.Schema != RecordSchema {
		return fmt.Errorf("store: save monitor %s: record schema %d; this build writes %d", id, r.Schema, RecordSchema)
	}
	r.Schema = RecordSchema
	if r.MonitorID == "" {
		r.MonitorID = id
	}
	now := s.stamp()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
	if problem := r.problem(); problem != "" {
		return fmt.Errorf("store: save monitor %s: %s", id, problem)
	}
	if !sameMonitor(r.MonitorID, id) {
		return fmt.Errorf("store: save monitor %s: the record is monitor %q's", id, r.MonitorID)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("store: save monitor %s: %w", id, err)
	}
	if err := s.writeAtomic(c.p.record, append(data, '\n')); err != nil {
		return fmt.Errorf("store: save monitor %s: %w", id, err)
	}
	return nil
}

// Load reads the monitor's record. It needs the monitor's claim. No record: (Record{}, false,
// nil). A record this build cannot use (not JSON, truncated, empty, another monitor's, another
// schema or position version) is set aside with a warning and reported the same way, so the
// monitor starts fresh. Only a failure to read or rename the file is an error.
func (s *Store) Load(id string) (Record, bool, error) {
	c, err := s.held(id)
	if err != nil {
		return Record{}, false, err
	}
	defer c.mu.Unlock()

	r, problem, err := readRecord(c.p.record)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("store: load monitor %s: %w", id, err)
	}
	if problem == "" && !sameMonitor(r.MonitorID, id) {
		problem = fmt.Sprintf("the record is monitor %q's", r.MonitorID)
	}
	if problem != "" {
		if err := c.setAside(problem); err != nil {
			return Record{}, false, err
		}
		return Record{}, false, nil
	}
	return r, true, nil
}

// Peek reads the monitor's record without claiming it: what another process (or an earlier one)
// saved, for read-only use. No record, or one this build cannot use: (Record{}, false, nil); Peek
// leaves such a record where it is (Load, under the claim, sets it aside).
func (s *Store) Peek(id string) (Record, bool, error) {
	if id == "" {
		return Record{}, false, errors.New("store: empty monitor id")
	}
	r, problem, err := readRecord(s.paths(fileName(id)).record)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("store: peek monitor %s: %w", id, err)
	}
	if problem != "" || !sameMonitor(r.MonitorID, id) {
		return Record{}, false, nil
	}
	return r, true, nil
}

// SetAside moves the monitor's record out of the way, as Load does with a corrupt one, for a
// record that read back fine but that the caller cannot use (statemachine.Restore refused it).
// It needs the monitor's claim. No record is not an error.
func (s *Store) SetAside(id, reason string) error {
	c, err := s.held(id)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	return c.setAside(reason)
}

// List returns the records in the directory, by monitor id. A record that cannot be used is
// set aside with a warning and skipped, unless another process holds its monitor: then it is
// only skipped, and left to that process.
func (s *Store) List() ([]Record, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	var out []Record
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), recordExt)
		if !ok || !e.Type().IsRegular() || !validName(name) {
			continue // temporary, set aside, lock and event files; anything not ours
		}
		r, problem, err := readRecord(s.paths(name).record)
		if errors.Is(err, fs.ErrNotExist) {
			continue // set aside or released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("store: list: %w", err)
		}
		if problem == "" && fileName(r.MonitorID) != name {
			problem = fmt.Sprintf("the record is monitor %q's, not this file's", r.MonitorID)
		}
		if problem != "" {
			s.setAsideListed(name, cmp.Or(r.MonitorID, name), problem)
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.MonitorID, b.MonitorID) })
	return out, nil
}

// setAsideListed sets aside a record List found unusable, under this store's claim or a
// momentary one; if another process holds the monitor, the record is its business.
func (s *Store) setAsideListed(name, id, problem string) {
	s.mu.Lock()
	c := s.claims[name]
	s.mu.Unlock()
	if c == nil {
		var err error
		if c, err = s.claim(id, name); err != nil {
			s.log.Warn("store: skipping an unusable record another claim holds", "monitor", id, "reason", problem, "err", err)
			return
		}
		defer func() { _ = c.Release() }()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return // released meanwhile: the next List or Load will see to it
	}
	if err := c.setAside(problem); err != nil {
		s.log.Warn("store: cannot set aside an unusable record", "monitor", id, "err", err)
	}
}

// readRecord reads and checks a record file. A file that is not a usable record is reported as
// a problem, not an error; err is only for failing to read it.
func readRecord(path string) (r Record, problem string, err error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return Record{}, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return Record{}, "", err
	}
	switch {
	case len(data) > maxRecordBytes:
		return Record{}, fmt.Sprintf("larger than %d bytes", maxRecordBytes), nil
	case len(strings.TrimSpace(string(data))) == 0:
		return Record{}, "empty file", nil
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, "not a valid record: " + err.Error(), nil
	}
	return r, r.problem(), nil
}

// problem says why this build cannot use a record, or "".
func (r *Record) problem() string {
	switch {
	case r.Schema != RecordSchema:
		return fmt.Sprintf("record schema %d; this build reads %d", r.Schema, RecordSchema)
	case r.MonitorID == "":
		return "no monitor id"
	case !statemachine.ReadsPositionVersion(r.Position.Version):
		return fmt.Sprintf("position version %d; this build reads %d to %d", r.Position.Version,
			statemachine.OldestPositionVersion, statemachine.PositionVersion)
	case r.Position.Monitor.ID != "" && !sameMonitor(r.Position.Monitor.ID, r.MonitorID):
		return fmt.Sprintf("the position is monitor %q's, the record %q's", r.Position.Monitor.ID, r.MonitorID)
	}
	return ""
}

// setAside renames the record to "<name>.json.corrupt-<UTC time>", logs a warning and notes it
// in the event log. c.mu is held.
func (c *Claim) setAside(reason string) error {
	s := c.s
	base := c.p.record + corruptPart + s.stamp().Format("20060102T150405Z")
	dst := base
	for i := 2; ; i++ {
		_, err := os.Lstat(dst)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("store: set aside monitor %s: %w", c.id, err)
		}
		if i > 1000 {
			return fmt.Errorf("store: set aside monitor %s: too many set-aside records named %s-N", c.id, filepath.Base(base))
		}
		dst = fmt.Sprintf("%s-%d", base, i)
	}
	if err := rename(c.p.record, dst); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("store: set aside monitor %s: %w", c.id, err)
	}
	if err := s.fs.syncDir(s.dir); err != nil {
		s.log.Warn("store: cannot sync the state directory", "err", err)
	}
	s.log.Warn("store: set aside a monitor record this build cannot use; the monitor starts fresh",
		"monitor", c.id, "reason", reason, "kept_as", dst)
	note := Event{Kind: EventLifecycle, Summary: "record set aside: " + reason, Data: map[string]string{"kept_as": filepath.Base(dst)}}
	if err := c.append(note); err != nil {
		s.log.Warn("store: cannot note the set-aside record in the event log", "monitor", c.id, "err", err)
	}
	return nil
}

package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

// failuresFile is the state directory's memory of CI failures, by API and repository: each
// failure signature and the runs it was seen in (rounds.FlakyMemory), which tells a flaky failure
// from a real one. It holds no token and no log text beyond the normalised signature.
const failuresFile = "failures.json"

// FailuresSchema is the version of the failures file's layout; a file of another version is
// ignored (and replaced on the next save).
const FailuresSchema = 1

type failuresRecord struct {
	Schema int `json:"schema"`
	// APIs maps a REST root to the failures seen through it.
	APIs map[string]rounds.FlakyMemory `json:"apis"`
}

func (r failuresRecord) schema() int { return r.Schema }

// LoadFailures returns the failure memory saved for the GitHub API at api (empty when none).
func (s *Store) LoadFailures(api string) (rounds.FlakyMemory, error) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	var rec failuresRecord
	if err := readVersioned(s.dir, failuresFile, FailuresSchema, &rec); err != nil {
		return rounds.FlakyMemory{}, err
	}
	return rec.APIs[api], nil
}

// SaveFailures replaces the failure memory of api, keeping the other APIs'.
func (s *Store) SaveFailures(api string, m rounds.FlakyMemory) error {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	var rec failuresRecord
	if err := readVersioned(s.dir, failuresFile, FailuresSchema, &rec); err != nil {
		rec = failuresRecord{} // unreadable: replaced by what this process knows
	}
	if rec.APIs == nil {
		rec.APIs = map[string]rounds.FlakyMemory{}
	}
	rec.Schema = FailuresSchema
	rec.APIs[api] = m
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("store: save failures: %w", err)
	}
	if err := s.writeAtomic(filepath.Join(s.dir, failuresFile), append(data, '\n')); err != nil {
		return fmt.Errorf("store: save failures: %w", err)
	}
	return nil
}

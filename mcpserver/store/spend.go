package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// spendFile is the state directory's record of what the watcher spends of each token's GitHub
// points, by API. It holds no token: only counts, times and the settings that shaped them.
const spendFile = "spend.json"

// SpendSchema is the version of the spend file's layout; a file of another version is ignored
// (and replaced on the next save).
const SpendSchema = 1

// Spend is what one watcher (one token on one GitHub API) has spent and how it paces itself: the
// watcher's own type (package watch), kept here by API.
type Spend = watch.Spend

type spendRecord struct {
	Schema int `json:"schema"`
	// APIs maps a REST root to its watcher's spend.
	APIs map[string]Spend `json:"apis"`
}

// SpendStore keeps one API's Spend in the state directory. Several processes may share the file:
// a save replaces this API's entry and keeps the others.
type SpendStore struct {
	s   *Store
	api string
}

// Spend returns the store of the watcher's spend for the GitHub API at api (a REST root).
func (s *Store) Spend(api string) *SpendStore { return &SpendStore{s: s, api: api} }

// LoadSpend returns the saved spend; ok is false when none was saved.
func (p *SpendStore) LoadSpend() (Spend, bool, error) {
	p.s.gateMu.Lock()
	defer p.s.gateMu.Unlock()
	rec, err := readSpend(p.s.dir)
	if err != nil {
		return Spend{}, false, err
	}
	sp, ok := rec.APIs[p.api]
	return sp, ok, nil
}

// SaveSpend replaces this API's spend.
func (p *SpendStore) SaveSpend(sp Spend) error {
	p.s.gateMu.Lock()
	defer p.s.gateMu.Unlock()
	rec, err := readSpend(p.s.dir)
	if err != nil {
		rec = spendRecord{} // unreadable: replaced by what this process knows
	}
	if rec.APIs == nil {
		rec.APIs = map[string]Spend{}
	}
	rec.Schema = SpendSchema
	rec.APIs[p.api] = sp
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("store: save spend: %w", err)
	}
	if err := p.s.writeAtomic(filepath.Join(p.s.dir, spendFile), append(data, '\n')); err != nil {
		return fmt.Errorf("store: save spend: %w", err)
	}
	return nil
}

// ReadSpend reads every API's saved spend from the state directory dir without a Store (for
// `prmonitor status`, which never writes). No file is an empty map.
func ReadSpend(dir string) (map[string]Spend, error) {
	rec, err := readSpend(dir)
	if err != nil {
		return nil, err
	}
	if rec.APIs == nil {
		return map[string]Spend{}, nil
	}
	return rec.APIs, nil
}

func readSpend(dir string) (spendRecord, error) {
	var rec spendRecord
	if err := readVersioned(dir, spendFile, SpendSchema, &rec); err != nil {
		return spendRecord{}, err
	}
	return rec, nil
}

func (r spendRecord) schema() int { return r.Schema }

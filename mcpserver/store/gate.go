package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// gateFile is the state directory's record of GitHub's rate-limit holds, for every GitHub API
// the directory's monitors talk to. It holds no token and nothing from which one could be told.
const gateFile = "ratelimit.json"

// GateSchema is the version of the rate-limit file's layout; a file of another version is
// ignored (and replaced on the next save).
const GateSchema = 1

type gateRecord struct {
	Schema int `json:"schema"`
	// APIs maps a REST root to its holds by scope ("" for the whole token, else a resource).
	APIs map[string]map[string]ghclient.Hold `json:"apis"`
}

// GateStore keeps the rate-limit holds of one GitHub API (its REST root) in the state directory,
// so that a restarted server sends nothing before the time GitHub named. It implements
// ghclient.GateStore. Several processes may share the file: a save merges with what is there.
type GateStore struct {
	s   *Store
	api string
}

// Gate returns the store of the rate-limit holds for the GitHub API at api (a REST root).
func (s *Store) Gate(api string) *GateStore { return &GateStore{s: s, api: api} }

// LoadGate implements ghclient.GateStore. No file is no holds; a file that cannot be read back is
// an error (the caller starts without holds, and the next save replaces the file).
func (g *GateStore) LoadGate() (map[string]ghclient.Hold, error) {
	g.s.gateMu.Lock()
	defer g.s.gateMu.Unlock()
	rec, err := g.read()
	if err != nil {
		return nil, err
	}
	return rec.APIs[g.api], nil
}

// SaveGate implements ghclient.GateStore: it replaces this API's holds, keeps the other APIs'
// (and any hold another process saved for this API that ends later), and drops holds that are
// over.
func (g *GateStore) SaveGate(holds map[string]ghclient.Hold) error {
	g.s.gateMu.Lock()
	defer g.s.gateMu.Unlock()
	rec, err := g.read()
	if err != nil {
		rec = gateRecord{} // unreadable: replaced by what this process knows
	}
	now := g.s.stamp()
	merged := map[string]ghclient.Hold{}
	for scope, h := range rec.APIs[g.api] {
		merged[scope] = h
	}
	for scope, h := range holds {
		if old, ok := merged[scope]; !ok || h.Until.After(old.Until) {
			merged[scope] = h
		}
	}
	out := gateRecord{Schema: GateSchema, APIs: map[string]map[string]ghclient.Hold{}}
	for api, hs := range rec.APIs {
		if api != g.api {
			out.APIs[api] = current(hs, now)
		}
	}
	out.APIs[g.api] = current(merged, now)
	for api, hs := range out.APIs {
		if len(hs) == 0 {
			delete(out.APIs, api)
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("store: save rate-limit holds: %w", err)
	}
	if err := g.s.writeAtomic(filepath.Join(g.s.dir, gateFile), append(data, '\n')); err != nil {
		return fmt.Errorf("store: save rate-limit holds: %w", err)
	}
	return nil
}

func (g *GateStore) read() (gateRecord, error) {
	var rec gateRecord
	if err := readVersioned(g.s.dir, gateFile, GateSchema, &rec); err != nil {
		return gateRecord{}, err
	}
	return rec, nil
}

// current keeps the holds that are not over at now.
func current(holds map[string]ghclient.Hold, now time.Time) map[string]ghclient.Hold {
	out := map[string]ghclient.Hold{}
	for scope, h := range holds {
		if h.Until.After(now) {
			out[scope] = h
		}
	}
	return out
}

var _ ghclient.GateStore = (*GateStore)(nil)

func (r gateRecord) schema() int { return r.Schema }

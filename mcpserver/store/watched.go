package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// watchedFile is the state directory's record of what the watcher has seen of each pull request,
// by API: the fingerprint of its last full read and when that was, so that a restarted watcher
// reads again only the pull requests that moved. It holds no token and no GitHub text but for
// what a fingerprint holds (times, object ids, GitHub's enum values, counts).
const watchedFile = "watched.json"

// WatchedSchema is the version of the watched file's layout; a file of another version is
// ignored (the watcher reads every pull request once, and the next save replaces the file).
const WatchedSchema = 1

// MaxWatched bounds the pull requests the watched file keeps per API: past it, those read the
// longest ago are dropped (they get a first read if they are watched again). WatchedMaxAge drops
// those not read for so long (a watched pull request is read at least every few hours).
const (
	MaxWatched    = 5000
	WatchedMaxAge = 30 * 24 * time.Hour
)

type watchedRecord struct {
	Schema int `json:"schema"`
	// APIs maps a REST root to its pull requests, by reference ("owner/repo#7").
	APIs map[string]map[string]watchedPR `json:"apis"`
}

type watchedPR struct {
	Fingerprint watchedFingerprint `json:"fingerprint"`
	ReadAt      time.Time          `json:"read_at"`
	ChangedAt   time.Time          `json:"changed_at,omitzero"`
	FollowUp    time.Time          `json:"follow_up,omitzero"`
}

// watchedFingerprint is ghclient.Fingerprint with this file's own names, so that renaming a field
// in Go does not change the file (a field the file lacks reads as moved: a read, never a miss).
type watchedFingerprint struct {
	UpdatedAt        time.Time `json:"updated_at"`
	HeadOID          string    `json:"head_oid"`
	BaseOID          string    `json:"base_oid,omitempty"`
	State            string    `json:"state"`
	IsDraft          bool      `json:"is_draft,omitempty"`
	Mergeable        string    `json:"mergeable,omitempty"`
	MergeStateStatus string    `json:"merge_state_status,omitempty"`
	ReviewDecision   string    `json:"review_decision,omitempty"`
	TotalComments    int       `json:"total_comments"`
	Rollup           string    `json:"rollup,omitempty"`
	Checks           string    `json:"checks,omitempty"`
	Threads          string    `json:"threads,omitempty"`
}

// SeenStore keeps what one watcher (one GitHub API) has seen of each pull request in the state
// directory. It implements watch.SeenStore. Several processes may share the file: a save replaces
// the entries of the pull requests it names and keeps the others.
type SeenStore struct {
	s   *Store
	api string
}

// Seen returns the store of what the watcher of the GitHub API at api (a REST root) has seen.
func (s *Store) Seen(api string) *SeenStore { return &SeenStore{s: s, api: api} }

// LoadSeen implements watch.SeenStore. No file is an empty map; a file that cannot be read back
// (torn by hand, another schema) is an error: the watcher starts fresh, and the next save
// replaces the file.
func (p *SeenStore) LoadSeen() (map[prstatus.PRRef]watch.Seen, error) {
	p.s.gateMu.Lock()
	defer p.s.gateMu.Unlock()
	rec, err := readWatched(p.s.dir)
	if err != nil {
		return nil, err
	}
	out := make(map[prstatus.PRRef]watch.Seen, len(rec.APIs[p.api]))
	for key, w := range rec.APIs[p.api] {
		ref, err := prstatus.ParsePRRef(key)
		if err != nil || ref.String() != key {
			continue // not a key this store writes
		}
		out[ref] = w.seen()
	}
	return out, nil
}

// SaveSeen implements watch.SeenStore: it replaces the entries of the pull requests in seen,
// keeps the others (of this API and of the others), drops those not read for WatchedMaxAge and,
// past MaxWatched, those read the longest ago.
func (p *SeenStore) SaveSeen(seen map[prstatus.PRRef]watch.Seen) error {
	p.s.gateMu.Lock()
	defer p.s.gateMu.Unlock()
	rec, err := readWatched(p.s.dir)
	if err != nil {
		rec = watchedRecord{} // unreadable: replaced by what this process knows
	}
	if rec.APIs == nil {
		rec.APIs = map[string]map[string]watchedPR{}
	}
	prs := rec.APIs[p.api]
	if prs == nil {
		prs = make(map[string]watchedPR, len(seen))
	}
	for ref, sv := range seen {
		if sv.Fingerprint.Missing || sv.ReadAt.IsZero() {
			delete(prs, ref.String())
			continue
		}
		prs[ref.String()] = fromSeen(sv)
	}
	rec.APIs[p.api] = bound(prs, p.s.now())
	rec.Schema = WatchedSchema
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("store: save what the watcher has seen: %w", err)
	}
	if err := p.s.writeAtomic(filepath.Join(p.s.dir, watchedFile), append(data, '\n')); err != nil {
		return fmt.Errorf("store: save what the watcher has seen: %w", err)
	}
	return nil
}

// bound drops entries not read for WatchedMaxAge, then the oldest past MaxWatched.
func bound(prs map[string]watchedPR, now time.Time) map[string]watchedPR {
	for k, w := range prs {
		if now.Sub(w.ReadAt) > WatchedMaxAge {
			delete(prs, k)
		}
	}
	if len(prs) <= MaxWatched {
		return prs
	}
	keys := make([]string, 0, len(prs))
	for k := range prs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(prs[b].ReadAt.Compare(prs[a].ReadAt), cmp.Compare(a, b)) // newest first
	})
	for _, k := range keys[MaxWatched:] {
		delete(prs, k)
	}
	return prs
}

func readWatched(dir string) (watchedRecord, error) {
	var rec watchedRecord
	if err := readVersioned(dir, watchedFile, WatchedSchema, &rec); err != nil {
		return watchedRecord{}, err
	}
	return rec, nil
}

func fromSeen(sv watch.Seen) watchedPR {
	f := sv.Fingerprint
	return watchedPR{
		Fingerprint: watchedFingerprint{
			UpdatedAt: utc(f.UpdatedAt), HeadOID: f.HeadOID, BaseOID: f.BaseOID, State: f.State,
			IsDraft: f.IsDraft, Mergeable: f.Mergeable, MergeStateStatus: f.MergeStateStatus,
			ReviewDecision: f.ReviewDecision, TotalComments: f.TotalComments, Rollup: f.Rollup,
			Checks: f.Checks, Threads: f.Threads,
		},
		ReadAt: utc(sv.ReadAt), ChangedAt: utc(sv.ChangedAt), FollowUp: utc(sv.FollowUp),
	}
}

func (w watchedPR) seen() watch.Seen {
	f := w.Fingerprint
	return watch.Seen{
		Fingerprint: ghclient.Fingerprint{
			UpdatedAt: f.UpdatedAt, HeadOID: f.HeadOID, BaseOID: f.BaseOID, State: f.State,
			IsDraft: f.IsDraft, Mergeable: f.Mergeable, MergeStateStatus: f.MergeStateStatus,
			ReviewDecision: f.ReviewDecision, TotalComments: f.TotalComments, Rollup: f.Rollup,
			Checks: f.Checks, Threads: f.Threads,
		},
		ReadAt: w.ReadAt, ChangedAt: w.ChangedAt, FollowUp: w.FollowUp,
	}
}

// utc is t in UTC without a monotonic reading, as it reads back from JSON (zero stays zero).
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Round(0)
}

func (r watchedRecord) schema() int { return r.Schema }

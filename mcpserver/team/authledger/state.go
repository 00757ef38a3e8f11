package authledger

import (
	"errors"
	"time"
)

// Kind is what an Op does.
type Kind string

const (
	// KindUse marks a key used (an authorization code exchanged); Outcome.UsedBefore says whether
	// it was already.
	KindUse Kind = "use"
	// KindRotate exchanges generation Gen of a sign-in's refresh token: taken when Gen is the
	// current one (the current becomes Gen+1); an older one is a replay, which revokes the sign-in.
	KindRotate Kind = "rotate"
	// KindRevoke revokes a key (a sign-in, a board session).
	KindRevoke Kind = "revoke"
)

// Op is one change to the ledger. Until is when the entry stops mattering (the latest end of
// what it guards); the ledger forgets it then.
type Op struct {
	Kind  Kind      `json:"kind"`
	Key   string    `json:"key"`
	Gen   int       `json:"gen,omitempty"`
	Until time.Time `json:"until"`
}

// MaxKey bounds a key's length.
const MaxKey = 200

// Check says what is wrong with op.
func (op Op) Check() error {
	switch {
	case op.Key == "" || len(op.Key) > MaxKey:
		return errors.New("authledger: a key of 1 to 200 bytes is required")
	case op.Until.IsZero():
		return errors.New("authledger: an entry needs its end")
	case op.Gen < 0:
		return errors.New("authledger: a negative generation")
	}
	switch op.Kind {
	case KindUse, KindRotate, KindRevoke:
		return nil
	}
	return errors.New("authledger: unknown op " + string(op.Kind))
}

// Outcome is what an Op found.
type Outcome struct {
	// UsedBefore: KindUse found the key used already.
	UsedBefore bool `json:"used_before,omitempty"`
	// Rotated: KindRotate took the generation.
	Rotated bool `json:"rotated,omitempty"`
	// Reused: KindRotate was shown a generation already exchanged; the key is revoked now.
	Reused bool `json:"reused,omitempty"`
	// Revoked: the key was revoked before this op.
	Revoked bool `json:"revoked,omitempty"`
}

// Entry is what the ledger keeps of a key.
type Entry struct {
	Until   time.Time `json:"until"`
	Used    bool      `json:"used,omitempty"`
	Gen     int       `json:"gen,omitempty"`
	Revoked bool      `json:"revoked,omitempty"`
}

// State is the ledger's content.
type State struct {
	Entries map[string]*Entry `json:"entries"`
}

// MaxEntries bounds the ledger; past it an op is refused (ErrFull) rather than forgetting a
// revocation early.
const MaxEntries = 200_000

// ErrFull is the refusal when the ledger holds MaxEntries entries that still matter.
var ErrFull = errors.New("authledger: the ledger is full")

// Apply does op at now.
func (s *State) Apply(now time.Time, op Op) (Outcome, error) {
	if err := op.Check(); err != nil {
		return Outcome{}, err
	}
	if s.Entries == nil {
		s.Entries = map[string]*Entry{}
	}
	e := s.Entries[op.Key]
	if e == nil || !now.Before(e.Until) {
		if len(s.Entries) >= MaxEntries {
			s.Prune(now)
			if len(s.Entries) >= MaxEntries {
				return Outcome{}, ErrFull
			}
		}
		e = &Entry{}
		s.Entries[op.Key] = e
	}
	if op.Until.After(e.Until) {
		e.Until = op.Until
	}
	out := Outcome{Revoked: e.Revoked}
	switch op.Kind {
	case KindUse:
		out.UsedBefore, e.Used = e.Used, true
	case KindRotate:
		switch {
		case e.Revoked:
		case op.Gen == e.Gen:
			e.Gen++
			out.Rotated = true
		default: // an older generation: the token was exchanged already, so it leaked
			e.Revoked = true
			out.Reused = true
		}
	case KindRevoke:
		e.Revoked = true
	}
	return out, nil
}

// Revoked says whether key is revoked at now.
func (s *State) Revoked(now time.Time, key string) bool {
	e := s.Entries[key]
	return e != nil && e.Revoked && now.Before(e.Until)
}

// Prune forgets the entries that no longer matter.
func (s *State) Prune(now time.Time) {
	for k, e := range s.Entries {
		if !now.Before(e.Until) {
			delete(s.Entries, k)
		}
	}
}

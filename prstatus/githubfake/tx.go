package githubfake

import (
	"errors"
	"fmt"
	"time"
)

// Event is one thing that happens on GitHub: a push, a review, a check finishing. Events are
// plain values; Describe is the one-line story the demo prints. Apply runs with the fake locked,
// so a step's events land atomically: no request sees half a step.
type Event interface {
	Describe() string
	Apply(tx *Tx) error
}

// Tx is an Event's locked access to the fake and to the pull request it is about.
type Tx struct {
	f   *Fake
	ref Ref
}

// ErrNoPullRequest is returned by events on a pull request that was not opened yet.
var ErrNoPullRequest = errors.New("githubfake: no such pull request (start with OpenPR)")

// Ref is the pull request the events are about.
func (tx *Tx) Ref() Ref { return tx.ref }

// Now is the fake's time.
func (tx *Tx) Now() time.Time { return tx.f.clock.now() }

// Viewer is the token's user.
func (tx *Tx) Viewer() Actor { return tx.f.viewer }

// PR is the pull request's data, for events and Do functions to read and change.
func (tx *Tx) PR() (*PullRequest, error) {
	pr := tx.f.prLocked(tx.ref)
	if pr == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoPullRequest, tx.ref)
	}
	return pr, nil
}

// Apply applies more events in the same transaction.
func (tx *Tx) Apply(events ...Event) error {
	for _, ev := range events {
		if err := ev.Apply(tx); err != nil {
			return fmt.Errorf("%s: %w", ev.Describe(), err)
		}
	}
	return nil
}

// NodeID returns a new global node id with the given prefix (e.g. "PRRT").
func (tx *Tx) NodeID(prefix string) string { return tx.f.ids.node(prefix) }

// OID returns a new 40-hex commit id.
func (tx *Tx) OID(seed string) string { return tx.f.ids.oid(seed) }

// Apply applies events to the pull request atomically, in order, stopping at the first error.
func (f *Fake) Apply(ref Ref, events ...Event) error {
	f.mu.Lock()
	defer f.unlock()
	f.settleLocked()
	return (&Tx{f: f, ref: ref}).Apply(events...)
}

// Do runs fn with the fake locked: for changes no event describes. fn must not call the fake.
func (f *Fake) Do(ref Ref, fn func(tx *Tx) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn(&Tx{f: f, ref: ref})
}

// View runs fn on the pull request's data with the fake locked. fn must not keep the pointer or
// call the fake.
func (f *Fake) View(ref Ref, fn func(pr *PullRequest)) error {
	f.mu.Lock()
	defer f.unlock()
	f.settleLocked()
	pr := f.prLocked(ref)
	if pr == nil {
		return fmt.Errorf("%w: %s", ErrNoPullRequest, ref)
	}
	fn(pr)
	return nil
}

// Custom is an Event made of a function, for one-off changes in a scenario.
type Custom struct {
	Say string
	Fn  func(tx *Tx) error
}

// Describe implements Event.
func (d Custom) Describe() string { return d.Say }

// Apply implements Event.
func (d Custom) Apply(tx *Tx) error {
	if d.Fn == nil {
		return nil
	}
	return d.Fn(tx)
}

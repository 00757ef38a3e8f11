package githubfake

import (
	"fmt"
)

// PRHandle is a test's shortcut to one pull request: apply events, read ids back.
type PRHandle struct {
	f   *Fake
	ref Ref
}

// PR returns a handle on the pull request ref (it need not exist yet).
func (f *Fake) PR(ref Ref) *PRHandle { return &PRHandle{f: f, ref: ref} }

// Ref is the pull request's reference.
func (h *PRHandle) Ref() Ref { return h.ref }

// Apply applies events to the pull request atomically.
func (h *PRHandle) Apply(events ...Event) error { return h.f.Apply(h.ref, events...) }

// View runs fn on the pull request's data with the fake locked.
func (h *PRHandle) View(fn func(pr *PullRequest)) error { return h.f.View(h.ref, fn) }

func (h *PRHandle) read(fn func(pr *PullRequest) error) error {
	var err error
	if verr := h.f.View(h.ref, func(pr *PullRequest) { err = fn(pr) }); verr != nil {
		return verr
	}
	return err
}

// ID is the pull request's node id ("" when it does not exist).
func (h *PRHandle) ID() string {
	var id string
	_ = h.View(func(pr *PullRequest) { id = pr.ID })
	return id
}

// HeadOID is the head commit's oid ("" when the pull request does not exist).
func (h *PRHandle) HeadOID() string {
	var oid string
	_ = h.View(func(pr *PullRequest) { oid = pr.HeadOID() })
	return oid
}

// State is the pull request's state ("" when it does not exist).
func (h *PRHandle) State() PRState {
	var s PRState
	_ = h.View(func(pr *PullRequest) { s = pr.State })
	return s
}

// ThreadInfo is a copy of one thread's ids and state.
type ThreadInfo struct {
	ID         string
	IsResolved bool
	IsOutdated bool
	Path       string
	Line       int
	// Comments are the visible comments; Pending the ones hidden in a pending review.
	Comments []CommentInfo
	Pending  []CommentInfo
}

// CommentInfo is a copy of one review comment.
type CommentInfo struct {
	ID         string
	DatabaseID int64
	Author     Actor
	Body       string
}

// Thread returns thread i (0 the first opened, -1 the last).
func (h *PRHandle) Thread(i int) (ThreadInfo, error) {
	var out ThreadInfo
	err := h.read(func(pr *PullRequest) error {
		t, err := threadAt(pr, i)
		if err != nil {
			return err
		}
		out = ThreadInfo{ID: t.ID, IsResolved: t.IsResolved, IsOutdated: t.IsOutdated, Path: t.Path, Line: t.Line}
		for _, c := range t.Comments {
			ci := CommentInfo{ID: c.ID, DatabaseID: c.DatabaseID, Author: c.Author, Body: c.Body}
			if c.Pending {
				out.Pending = append(out.Pending, ci)
			} else {
				out.Comments = append(out.Comments, ci)
			}
		}
		return nil
	})
	return out, err
}

// Threads is how many review threads the pull request has.
func (h *PRHandle) Threads() int {
	n := 0
	_ = h.View(func(pr *PullRequest) { n = len(pr.Threads) })
	return n
}

// CheckInfo is a copy of one check run of the head.
type CheckInfo struct {
	ID         string
	Name       string
	Status     string
	Conclusion string
	JobID      int64 // the check run's database id
	RunID      int64 // 0 when not GitHub Actions
	Attempt    int
}

// Check returns the head's current check run named name.
func (h *PRHandle) Check(name string) (CheckInfo, error) {
	var out CheckInfo
	err := h.read(func(pr *PullRequest) error {
		cr, err := findCheck(pr.Head(), name)
		if err != nil {
			return err
		}
		out = CheckInfo{ID: cr.ID, Name: cr.Name, Status: cr.Status, Conclusion: cr.Conclusion, JobID: cr.DatabaseID, Attempt: cr.Attempt}
		if cr.Run != nil {
			out.RunID = cr.Run.DatabaseID
		}
		return nil
	})
	return out, err
}

// Review returns the id and database id of review i (0 the first, -1 the last).
func (h *PRHandle) Review(i int) (id string, databaseID int64, err error) {
	err = h.read(func(pr *PullRequest) error {
		if i < 0 {
			i += len(pr.Reviews)
		}
		if i < 0 || i >= len(pr.Reviews) {
			return fmt.Errorf("githubfake: %s has no review %d", h.ref, i)
		}
		id, databaseID = pr.Reviews[i].ID, pr.Reviews[i].DatabaseID
		return nil
	})
	return id, databaseID, err
}

package githubfake

import (
	"fmt"
	"strings"
)

// Events on reviews, review requests and review threads.

// Threads returns n new threads on path, lines 1..n, for pull requests with many threads.
func Threads(n int, path string) []NewThread {
	out := make([]NewThread, n)
	for i := range out {
		out[i] = NewThread{Path: path, Line: i + 1, Body: fmt.Sprintf("Comment %d on %s", i+1, path)}
	}
	return out
}

// ReviewRequested requests reviews from accounts and teams.
type ReviewRequested struct {
	Reviewers []Actor
	Teams     []Team
}

// Describe implements Event.
func (e ReviewRequested) Describe() string {
	var names []string
	for _, r := range e.Reviewers {
		names = append(names, r.Login)
	}
	for _, t := range e.Teams {
		names = append(names, t.String())
	}
	return "review requested from " + strings.Join(names, ", ")
}

// Apply implements Event.
func (e ReviewRequested) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	tx.f.requestReviewsLocked(pr, e.Reviewers, e.Teams)
	return nil
}

// ReviewSubmitted submits a review, opening Threads with it. It answers (clears) the reviewer's
// pending review request.
type ReviewSubmitted struct {
	By      Actor
	State   ReviewState
	Body    string
	Threads []NewThread
	// Commit is the oid reviewed; it defaults to the current head.
	Commit string
}

// Approve is a review approving the head.
func Approve(by Actor, body string) ReviewSubmitted {
	return ReviewSubmitted{By: by, State: ReviewStateApproved, Body: body}
}

// RequestChanges is a review requesting changes, with its threads.
func RequestChanges(by Actor, body string, threads ...NewThread) ReviewSubmitted {
	return ReviewSubmitted{By: by, State: ReviewStateChangesRequested, Body: body, Threads: threads}
}

// CommentReview is a COMMENTED review (what bots such as Copilot submit), with its threads.
func CommentReview(by Actor, body string, threads ...NewThread) ReviewSubmitted {
	return ReviewSubmitted{By: by, State: ReviewStateCommented, Body: body, Threads: threads}
}

// Describe implements Event.
func (e ReviewSubmitted) Describe() string {
	verb := map[ReviewState]string{
		ReviewStateApproved:         "approves",
		ReviewStateChangesRequested: "requests changes",
		ReviewStateCommented:        "comments",
		ReviewStatePending:          "starts a pending review",
	}[e.State]
	if verb == "" {
		verb = "reviews (" + string(e.State) + ")"
	}
	s := e.By.Login + " " + verb
	if e.Body != "" {
		s += fmt.Sprintf(": %q", clip(e.Body, 60))
	}
	if n := len(e.Threads); n > 0 {
		s += fmt.Sprintf(" with %d inline comment%s", n, plural(n, "", "s"))
	}
	return s
}

// clip is s on one line, cut to n bytes (ops_merge.go says why the fake has its own).
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// Apply implements Event.
func (e ReviewSubmitted) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	if e.By.zero() {
		return fmt.Errorf("githubfake: a review needs an author")
	}
	state := e.State
	if state == "" {
		state = ReviewStateCommented
	}
	r := tx.f.newReviewLocked(pr, e.By, state, e.Body, e.Commit)
	for _, nt := range e.Threads {
		tx.f.newThreadLocked(pr, r, nt)
	}
	return nil
}

// ReviewDismissed dismisses the reviewer's latest approving or change-requesting review.
type ReviewDismissed struct {
	Reviewer Actor
	By       Actor
	Message  string
}

// Describe implements Event.
func (e ReviewDismissed) Describe() string {
	return fmt.Sprintf("%s dismisses %s's review", who(e.By, "a maintainer"), e.Reviewer.Login)
}

// Apply implements Event.
func (e ReviewDismissed) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	return tx.f.dismissLocked(pr, e.Reviewer)
}

// ThreadReply posts a reply in thread number Thread (0 is the first thread opened, -1 the last).
type ThreadReply struct {
	Thread int
	By     Actor
	Body   string
}

// Describe implements Event.
func (e ThreadReply) Describe() string {
	return fmt.Sprintf("%s replies on thread %d: %q", e.By.Login, e.Thread, clip(e.Body, 60))
}

// Apply implements Event.
func (e ThreadReply) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	t, err := threadAt(pr, e.Thread)
	if err != nil {
		return err
	}
	tx.f.replyLocked(t, e.By, e.Body, false)
	return nil
}

// ThreadResolved resolves thread number Thread.
type ThreadResolved struct {
	Thread int
	By     Actor
}

// Describe implements Event.
func (e ThreadResolved) Describe() string {
	return fmt.Sprintf("%s resolves thread %d", who(e.By, "someone"), e.Thread)
}

// Apply implements Event.
func (e ThreadResolved) Apply(tx *Tx) error { return tx.resolve(e.Thread, e.By, true) }

// ThreadUnresolved reopens thread number Thread.
type ThreadUnresolved struct {
	Thread int
	By     Actor
}

// Describe implements Event.
func (e ThreadUnresolved) Describe() string {
	return fmt.Sprintf("%s unresolves thread %d", who(e.By, "someone"), e.Thread)
}

// Apply implements Event.
func (e ThreadUnresolved) Apply(tx *Tx) error { return tx.resolve(e.Thread, e.By, false) }

func (tx *Tx) resolve(i int, by Actor, resolved bool) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	t, err := threadAt(pr, i)
	if err != nil {
		return err
	}
	if by.zero() {
		by = tx.f.viewer
	}
	tx.f.setResolvedLocked(t, by, resolved)
	return nil
}

// ThreadOutdated marks thread number Thread outdated (the lines it was on changed).
type ThreadOutdated struct{ Thread int }

// Describe implements Event.
func (e ThreadOutdated) Describe() string { return fmt.Sprintf("thread %d becomes outdated", e.Thread) }

// Apply implements Event.
func (e ThreadOutdated) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	t, err := threadAt(pr, e.Thread)
	if err != nil {
		return err
	}
	t.IsOutdated = true
	return nil
}

package githubfake

import (
	"fmt"
	"strings"
)

// Review, thread and comment operations. Events, REST handlers and GraphQL mutations all go
// through these, with the fake's lock held.

// NewThread describes a review thread opened with a review.
type NewThread struct {
	Path string
	// Line is the line commented on; 0 makes a file-level thread.
	Line int
	// StartLine, when set, makes a multi-line comment.
	StartLine int
	Body      string
	// Outdated creates the thread already outdated.
	Outdated bool
	// Resolved creates the thread already resolved (by its author).
	Resolved bool
}

func (f *Fake) newReviewLocked(pr *PullRequest, by Actor, state ReviewState, body, commitOID string) *Review {
	f.accountLocked(by)
	now := f.clock.now()
	if commitOID == "" {
		commitOID = pr.HeadOID()
	}
	r := &Review{
		ID: f.ids.node(prefixReview), DatabaseID: f.ids.db("review"), Author: by, State: state,
		Body: body, CreatedAt: now, CommitOID: commitOID, pr: pr,
	}
	pr.Reviews = append(pr.Reviews, r)
	if state != ReviewStatePending {
		r.SubmittedAt = now
		f.clearReviewRequestLocked(pr, by)
	}
	f.nodes[r.ID] = r
	pr.UpdatedAt = now
	return r
}

// submitReviewLocked turns a pending review into a submitted one: its comments become visible.
func (f *Fake) submitReviewLocked(r *Review, state ReviewState, body string) {
	now := f.clock.now()
	r.State = state
	if body != "" {
		r.Body = body
	}
	r.SubmittedAt = now
	for _, t := range r.pr.Threads {
		for _, c := range t.Comments {
			if c.ReviewID == r.ID {
				c.Pending = false
			}
		}
	}
	f.clearReviewRequestLocked(r.pr, r.Author)
	r.pr.UpdatedAt = now
}

// clearReviewRequestLocked removes the reviewer's pending request: a review answers only that
// reviewer's request.
func (f *Fake) clearReviewRequestLocked(pr *PullRequest, by Actor) {
	kept := pr.ReviewRequests[:0]
	for _, rr := range pr.ReviewRequests {
		if rr.Team.Slug == "" && sameActor(rr.Reviewer, by) {
			delete(f.nodes, rr.ID)
			continue
		}
		kept = append(kept, rr)
	}
	pr.ReviewRequests = kept
}

func (f *Fake) newThreadLocked(pr *PullRequest, review *Review, nt NewThread) *Thread {
	t := &Thread{
		ID: f.ids.node(prefixThread), Path: nt.Path, Line: nt.Line, OriginalLine: nt.Line,
		StartLine: nt.StartLine, IsOutdated: nt.Outdated, pr: pr,
	}
	if t.Path == "" {
		t.Path = "README.md"
	}
	pr.Threads = append(pr.Threads, t)
	f.nodes[t.ID] = t
	f.addCommentLocked(t, review.Author, nt.Body, review)
	if nt.Resolved {
		t.IsResolved = true
		t.ResolvedBy = review.Author
	}
	return t
}

// addCommentLocked appends a comment to a thread, in review (which may be pending).
func (f *Fake) addCommentLocked(t *Thread, by Actor, body string, review *Review) *ReviewComment {
	f.accountLocked(by)
	now := f.clock.now()
	c := &ReviewComment{
		ID: f.ids.node(prefixComment), DatabaseID: f.ids.db("comment"), Author: by, Body: body,
		CreatedAt: now, UpdatedAt: now, CommitOID: t.pr.HeadOID(), thread: t,
	}
	if len(t.Comments) > 0 {
		c.ReplyTo = t.Comments[0].DatabaseID
	}
	if review != nil {
		c.ReviewID = review.ID
		c.Pending = review.State == ReviewStatePending
	}
	t.Comments = append(t.Comments, c)
	f.nodes[c.ID] = c
	f.comments[c.DatabaseID] = c
	t.pr.UpdatedAt = now
	return c
}

// replyLocked posts a reply in a thread as by. pending puts it in by's pending review (created if
// needed), invisible until submitted; otherwise it lands in a new COMMENTED review, as a reply
// through the API does.
func (f *Fake) replyLocked(t *Thread, by Actor, body string, pending bool) *ReviewComment {
	var review *Review
	if pending {
		review = f.pendingReviewLocked(t.pr, by)
	} else {
		review = f.newReviewLocked(t.pr, by, ReviewStateCommented, "", "")
	}
	return f.addCommentLocked(t, by, body, review)
}

func (f *Fake) pendingReviewLocked(pr *PullRequest, by Actor) *Review {
	for _, r := range pr.Reviews {
		if r.State == ReviewStatePending && sameActor(r.Author, by) {
			return r
		}
	}
	return f.newReviewLocked(pr, by, ReviewStatePending, "", "")
}

func (f *Fake) setResolvedLocked(t *Thread, by Actor, resolved bool) {
	t.IsResolved = resolved
	if resolved {
		t.ResolvedBy = by
	} else {
		t.ResolvedBy = Actor{}
	}
	// GitHub is not known to move the pull request's updatedAt on a resolve: the fake does not,
	// so nothing that watches updatedAt can count on it.
}

// requestReviewsLocked adds review requests (skipping ones already pending).
func (f *Fake) requestReviewsLocked(pr *PullRequest, users []Actor, teams []Team) {
	for _, u := range users {
		if u.zero() || f.hasRequestLocked(pr, u, Team{}) {
			continue
		}
		f.accountLocked(u)
		rr := &ReviewRequest{ID: f.ids.node(prefixRequest), DatabaseID: f.ids.db("request"), Reviewer: u, pr: pr}
		pr.ReviewRequests = append(pr.ReviewRequests, rr)
		f.nodes[rr.ID] = rr
	}
	for _, t := range teams {
		if t.Slug == "" || f.hasRequestLocked(pr, Actor{}, t) {
			continue
		}
		f.teamLocked(t)
		rr := &ReviewRequest{ID: f.ids.node(prefixRequest), DatabaseID: f.ids.db("request"), Team: t, pr: pr}
		pr.ReviewRequests = append(pr.ReviewRequests, rr)
		f.nodes[rr.ID] = rr
	}
	pr.UpdatedAt = f.clock.now()
}

func (f *Fake) hasRequestLocked(pr *PullRequest, u Actor, t Team) bool {
	for _, rr := range pr.ReviewRequests {
		if t.Slug != "" && strings.EqualFold(rr.Team.String(), t.String()) {
			return true
		}
		if !u.zero() && rr.Team.Slug == "" && sameActor(rr.Reviewer, u) {
			return true
		}
	}
	return false
}

// dismissLocked dismisses the reviewer's latest opinionated review.
func (f *Fake) dismissLocked(pr *PullRequest, reviewer Actor) error {
	for i := len(pr.Reviews) - 1; i >= 0; i-- {
		r := pr.Reviews[i]
		if sameActor(r.Author, reviewer) && (r.State == ReviewStateApproved || r.State == ReviewStateChangesRequested) {
			r.State = ReviewStateDismissed
			pr.UpdatedAt = f.clock.now()
			return nil
		}
	}
	return fmt.Errorf("githubfake: %s has no approving or change-requesting review to dismiss on %s", reviewer.Login, pr.Ref())
}

// threadAt picks a thread by index: 0 is the first opened, -1 the last.
func threadAt(pr *PullRequest, i int) (*Thread, error) {
	if i < 0 {
		i += len(pr.Threads)
	}
	if i < 0 || i >= len(pr.Threads) {
		return nil, fmt.Errorf("githubfake: %s has no thread %d (it has %d)", pr.Ref(), i, len(pr.Threads))
	}
	return pr.Threads[i], nil
}

// findActor resolves a REST or GraphQL login to a known account (bots with or without "[bot]").
func (f *Fake) findActor(login string) Actor {
	if strings.HasSuffix(login, "[bot]") {
		return Bot(login)
	}
	for _, acc := range f.accounts {
		if acc.Type == TypeBot && strings.EqualFold(acc.Login, login) {
			return acc.Actor
		}
	}
	return User(login)
}

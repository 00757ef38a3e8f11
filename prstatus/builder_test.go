package prstatus

import (
	"fmt"
	"strings"
	"time"
)

// The builder makes table rows read like the story of a pull request: calls happen in time order,
// a review lands on whatever head the PR has when it is submitted, and a new commit becomes the
// head.

var day0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// at parses "10:00" (on 2026-11-20) or "+1d 10:00" (a day later), in UTC.
func at(s string) time.Time {
	day := 0
	if strings.HasPrefix(s, "+") {
		var rest string
		if _, err := fmt.Sscanf(s, "+%dd %s", &day, &rest); err != nil {
			panic("bad time " + s)
		}
		s = rest
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		panic("bad time " + s)
	}
	return day0.AddDate(0, 0, day).Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
}

type prBuilder struct {
	s Snapshot
	n int
}

// aPR is an open, mergeable PR by "dev", watched with dev's token, on branch feature → main.
func aPR() *prBuilder {
	return &prBuilder{s: Snapshot{
		Ref:       PRRef{Owner: "acme", Repo: "widget", Number: 7},
		ID:        "PR_7",
		Title:     "Add widgets",
		Author:    Actor{Login: "dev"},
		Viewer:    "dev",
		State:     StateOpen,
		HeadRef:   "feature",
		BaseRef:   "main",
		Mergeable: MergeableYes,
	}}
}

func (b *prBuilder) next(prefix string) string {
	b.n++
	return fmt.Sprintf("%s%d", prefix, b.n)
}

func actor(login string) Actor { return Actor{Login: login, IsBot: strings.HasSuffix(login, "[bot]")} }

// assocOf is how a hand-built author relates to the repository, as GitHub would report it on a
// team's repository: people are members, bots (GitHub Apps) have no association. Tests about
// other associations set theirs.
func assocOf(login string) Association {
	if actor(login).IsBot {
		return AssocNone
	}
	return AssocMember
}

// oid pads a short name into a 40-character object id, so text.ShortSHA shows the name.
func oid(name string) string { return name + strings.Repeat("0", max(0, 40-len(name))) }

// commit adds an ordinary commit authored and committed at when; it becomes the head.
func (b *prBuilder) commit(name, when string) *prBuilder {
	return b.rawCommit(Commit{OID: oid(name), AuthoredDate: at(when), CommittedDate: at(when), Headline: "Fix " + name, ParentCount: 1})
}

// rewritten adds a commit authored at one time and committed at another (rebase, amend, cherry-pick).
func (b *prBuilder) rewritten(name, authored, committed string) *prBuilder {
	return b.rawCommit(Commit{OID: oid(name), AuthoredDate: at(authored), CommittedDate: at(committed), Headline: "Fix " + name, ParentCount: 1})
}

// mergeMain adds a "Merge branch 'main'" commit with two parents.
func (b *prBuilder) mergeMain(name, when string) *prBuilder {
	return b.rawCommit(Commit{OID: oid(name), AuthoredDate: at(when), CommittedDate: at(when), Headline: "Merge branch 'main' into feature", ParentCount: 2})
}

func (b *prBuilder) rawCommit(c Commit) *prBuilder {
	b.s.Commits = append(b.s.Commits, c)
	b.s.CommitsTotal = len(b.s.Commits)
	b.s.HeadOID = c.OID
	return b
}

// review submits a review on the current head, into the history and (for verdicts) into GitHub's
// latest opinionated reviews.
func (b *prBuilder) review(who string, state ReviewState, when string) *prBuilder {
	r := Review{ID: b.next("PRR_"), Author: actor(who), AuthorAssociation: assocOf(who), State: state, SubmittedAt: at(when), CommitOID: b.s.HeadOID, Body: "review by " + who}
	b.s.Reviews = append(b.s.Reviews, r)
	if state.Opinionated() {
		kept := b.s.LatestOpinionatedReviews[:0]
		for _, o := range b.s.LatestOpinionatedReviews {
			if o.Author.Login != who {
				kept = append(kept, o)
			}
		}
		b.s.LatestOpinionatedReviews = append(kept, r)
	}
	return b
}

// dismiss turns a reviewer's latest CHANGES_REQUESTED or APPROVED review into DISMISSED, as
// GitHub does: the review keeps its time, its state changes, and it leaves the latest verdicts.
func (b *prBuilder) dismiss(who string) *prBuilder {
	for i := len(b.s.Reviews) - 1; i >= 0; i-- {
		if r := &b.s.Reviews[i]; r.Author.Login == who && (r.State == ReviewApproved || r.State == ReviewChangesRequested) {
			r.State = ReviewDismissed
			break
		}
	}
	kept := b.s.LatestOpinionatedReviews[:0]
	for _, o := range b.s.LatestOpinionatedReviews {
		if o.Author.Login != who {
			kept = append(kept, o)
		}
	}
	b.s.LatestOpinionatedReviews = kept
	return b
}

// truncateHistory keeps only the newest n reviews of the history, as a long PR's first page does.
func (b *prBuilder) truncateHistory(n int) *prBuilder {
	if len(b.s.Reviews) > n {
		b.s.Reviews = b.s.Reviews[len(b.s.Reviews)-n:]
	}
	return b
}

func (b *prBuilder) request(who ...string) *prBuilder {
	b.s.ReviewRequests = append(b.s.ReviewRequests, who...)
	return b
}

// say is one comment in a thread.
type say struct {
	who, when, body string
}

func (b *prBuilder) thread(id string, comments ...say) *prBuilder {
	return b.rawThread(Thread{ID: id, Path: "widget.go", Line: 12}, comments...)
}

func (b *prBuilder) resolvedThread(id string, comments ...say) *prBuilder {
	return b.rawThread(Thread{ID: id, Path: "widget.go", Line: 12, IsResolved: true}, comments...)
}

func (b *prBuilder) rawThread(t Thread, comments ...say) *prBuilder {
	for _, c := range comments {
		b.n++
		t.Comments = append(t.Comments, Comment{
			ID: fmt.Sprintf("PRRC_%d", b.n), DatabaseID: int64(1000 + b.n), Author: actor(c.who), AuthorAssociation: assocOf(c.who),
			Body: orDefault(c.body, "comment by "+c.who), CreatedAt: at(c.when),
		})
	}
	t.TotalComments = len(t.Comments)
	b.s.Threads = append(b.s.Threads, t)
	return b
}

// run adds a GitHub Actions check run in workflow CI.
func (b *prBuilder) run(name string, job int64, status, conclusion string) *prBuilder {
	b.s.Checks = append(b.s.Checks, Check{
		Kind: KindCheckRun, Name: name, Status: status, Conclusion: conclusion, DatabaseID: job,
		WorkflowRunID: 500, WorkflowName: "CI", URL: fmt.Sprintf("https://ci.example/job/%d", job),
	})
	return b
}

func (b *prBuilder) passing(name string, job int64) *prBuilder {
	return b.run(name, job, "COMPLETED", "SUCCESS")
}

func (b *prBuilder) status(context, state string) *prBuilder {
	b.s.Checks = append(b.s.Checks, Check{Kind: KindStatusContext, Name: context, State: state})
	return b
}

func (b *prBuilder) with(f func(s *Snapshot)) *prBuilder {
	f(&b.s)
	return b
}

func (b *prBuilder) decision(d string) *prBuilder {
	return b.with(func(s *Snapshot) { s.ReviewDecision = d })
}
func (b *prBuilder) draft() *prBuilder { return b.with(func(s *Snapshot) { s.IsDraft = true }) }
func (b *prBuilder) mergeable(m Mergeable) *prBuilder {
	return b.with(func(s *Snapshot) { s.Mergeable = m })
}
func (b *prBuilder) merged() *prBuilder {
	return b.with(func(s *Snapshot) { s.State, s.Merged, s.Closed = StateMerged, true, true })
}
func (b *prBuilder) closed() *prBuilder {
	return b.with(func(s *Snapshot) { s.State, s.Closed = StateClosed, true })
}

func (b *prBuilder) build() *Snapshot {
	s := b.s
	return &s
}

// derive runs Derive at a fixed time.
func (b *prBuilder) derive() Facts { return Derive(b.build(), at("+2d 12:00")) }

func kinds(f Facts) []AttentionKind {
	out := make([]AttentionKind, len(f.Attentions))
	for i, a := range f.Attentions {
		out[i] = a.Kind
	}
	return out
}

// rebase rewrites every non-merge commit onto a newer base at when: new object ids and committer
// dates, the author dates kept, merges dropped (as `git rebase` does).
func (b *prBuilder) rebase(when string) *prBuilder {
	var kept []Commit
	for _, c := range b.s.Commits {
		if c.ParentCount > 1 {
			continue
		}
		c.OID = oid("r" + c.OID[:6])
		c.CommittedDate = at(when)
		kept = append(kept, c)
	}
	b.s.Commits = kept
	b.s.CommitsTotal = len(kept)
	if len(kept) > 0 {
		b.s.HeadOID = kept[len(kept)-1].OID
	}
	return b
}

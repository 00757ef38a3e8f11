package prstatus

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigPR is a long-lived pull request: 300 threads of 4 comments, 250 commits, 100 checks (a few
// re-run), 50 reviews.
func bigPR() *Snapshot {
	s := aPR().build()
	body := strings.Repeat("This needs a closer look: the loop allocates on every pass. ", 8)
	reviewers := []string{"alice", "bob", "carol", "dan", "erin", "copilot-pull-request-reviewer[bot]"}
	t0 := day0
	for i := range 250 {
		c := Commit{OID: fmt.Sprintf("%040x", i+1), AuthoredDate: t0.Add(time.Duration(i) * 10 * time.Minute), ParentCount: 1, Headline: fmt.Sprintf("Step %d", i)}
		c.CommittedDate = c.AuthoredDate
		switch i % 25 {
		case 0:
			c.ParentCount, c.Headline = 2, "Merge branch 'main' into feature"
		case 1:
			c.CommittedDate = c.AuthoredDate.Add(3 * time.Hour)
		}
		s.Commits = append(s.Commits, c)
	}
	s.CommitsTotal = len(s.Commits)
	s.HeadOID = s.Commits[len(s.Commits)-1].OID
	for i := range 50 {
		st := []ReviewState{ReviewCommented, ReviewChangesRequested, ReviewApproved, ReviewCommented, ReviewDismissed}[i%5]
		r := Review{ID: fmt.Sprintf("PRR_%d", i), Author: actor(reviewers[i%len(reviewers)]), AuthorAssociation: assocOf(reviewers[i%len(reviewers)]), State: st, Body: body,
			SubmittedAt: t0.Add(time.Duration(i) * 50 * time.Minute), CommitOID: s.Commits[i*5].OID}
		s.Reviews = append(s.Reviews, r)
	}
	for _, r := range s.Reviews[len(s.Reviews)-len(reviewers):] {
		if r.State.Opinionated() {
			s.LatestOpinionatedReviews = append(s.LatestOpinionatedReviews, r)
		}
	}
	marker := "Done.\n\n" + Marker{Round: "r1", Thread: "T", Kind: ReplyAddressed}.String()
	for i := range 300 {
		th := Thread{ID: fmt.Sprintf("PRRT_%d", i), Path: fmt.Sprintf("pkg/f%d.go", i%40), Line: i, IsResolved: i%3 == 0, IsOutdated: i%5 == 0}
		who := reviewers[i%len(reviewers)]
		for j := range 4 {
			author, text := who, body
			switch {
			case j == 1:
				author, text = "ci-token", marker
			case j == 2 && i%2 == 0:
				author = "dev"
			}
			th.Comments = append(th.Comments, Comment{ID: fmt.Sprintf("PRRC_%d_%d", i, j), DatabaseID: int64(i*10 + j), Author: actor(author), AuthorAssociation: assocOf(author), Body: text, CreatedAt: t0.Add(time.Duration(i*4+j) * time.Minute)})
		}
		th.TotalComments = 4
		s.Threads = append(s.Threads, th)
	}
	for i := range 100 {
		c := Check{Kind: KindCheckRun, Name: fmt.Sprintf("job-%d", i%90), Status: "COMPLETED", Conclusion: "SUCCESS", DatabaseID: int64(1000 + i), WorkflowRunID: 77, WorkflowName: "CI", URL: "https://ci.example/x"}
		switch i % 10 {
		case 3:
			c.Conclusion = "FAILURE"
		case 7:
			c.Status, c.Conclusion = "IN_PROGRESS", ""
		case 9:
			c = Check{Kind: KindStatusContext, Name: fmt.Sprintf("legacy-%d", i), State: "SUCCESS"}
		}
		s.Checks = append(s.Checks, c)
	}
	return s
}

func BenchmarkDerive(b *testing.B) {
	s := bigPR()
	now := day0.Add(48 * time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		_ = Derive(s, now)
	}
}

func TestBigPRInvariants(t *testing.T) {
	s := bigPR()
	checkInvariants(t, s, Derive(s, day0))
}

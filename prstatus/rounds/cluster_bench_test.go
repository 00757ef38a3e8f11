package rounds

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// fifteenRounds is a PR answered over 15 rounds of 10 threads each, with 5 new threads.
func fifteenRounds() (prstatus.Facts, []string) {
	b, ids := roundsPR(15, 10)
	for i := range 4 {
		id := fmt.Sprintf("PRRT_new_%02d", i+1)
		b.fresh(id, fmt.Sprintf("api/h%02d.go", i), 50+i, "carol", "+15d 10:00", "This error is swallowed; validate the input too.")
		ids = append(ids, id)
	}
	return b.derive(), ids
}

// BenchmarkCluster: the cost of the analysis alone, on facts already derived.
func BenchmarkCluster(b *testing.B) {
	f, ids := fifteenRounds()
	b.ReportAllocs()
	for b.Loop() {
		if Cluster(&f, ids, DefaultLookback).Brief == nil {
			b.Fatal("no brief")
		}
	}
}

// BenchmarkClusterThreeRounds is the same PR with 3 rounds: the lookback makes both cost alike.
func BenchmarkClusterThreeRounds(b *testing.B) {
	bl, ids := roundsPR(3, 10)
	f := bl.derive()
	b.ReportAllocs()
	for b.Loop() {
		_ = Cluster(&f, ids, DefaultLookback)
	}
}

// BenchmarkClusterGateClosed: one new thread and no feedback since the newest prior reply.
func BenchmarkClusterGateClosed(b *testing.B) {
	bl, _ := roundsPR(15, 10)
	bl.fresh("old", "x/y.go", 1, "bob", "+0d 08:00", "Validate it.")
	f := bl.derive()
	b.ReportAllocs()
	for b.Loop() {
		_ = Cluster(&f, []string{"old"}, DefaultLookback)
	}
}

func BenchmarkPriorResolutions(b *testing.B) {
	f, _ := fifteenRounds()
	b.ReportAllocs()
	for b.Loop() {
		_ = PriorResolutions(&f)
	}
}

func BenchmarkCategorize(b *testing.B) {
	body := "This swallows the error from Close; please wrap it with %w and add a unit test for the failure path. " +
		"Also the loop allocates on every iteration."
	b.ReportAllocs()
	for b.Loop() {
		_ = Categorize(body, "store/file.go")
	}
}

// reviewedPR is a long-lived pull request's review side: 50 reviews in every state by six
// reviewers, and 300 threads of 4 comments, a third of them resolved, each answered with a marker.
func reviewedPR() *prstatus.Snapshot {
	s := aPR().commit("c1", "00:00").build()
	body := strings.Repeat("This needs a closer look: the loop allocates on every pass. ", 8)
	reviewers := []string{"alice", "bob", "carol", "dan", "erin", "copilot-pull-request-reviewer[bot]"}
	for i := range 50 {
		st := []prstatus.ReviewState{prstatus.ReviewCommented, prstatus.ReviewChangesRequested, prstatus.ReviewApproved, prstatus.ReviewCommented, prstatus.ReviewDismissed}[i%5]
		s.Reviews = append(s.Reviews, prstatus.Review{ID: fmt.Sprintf("PRR_%d", i), Author: actor(reviewers[i%len(reviewers)]), AuthorAssociation: assocOf(reviewers[i%len(reviewers)]), State: st,
			Body: body, SubmittedAt: day0.Add(time.Duration(i) * 50 * time.Minute), CommitOID: s.HeadOID})
	}
	marker := "Done.\n\n" + prstatus.Marker{Round: "r1", Thread: "T", Kind: prstatus.ReplyAddressed}.String()
	for i := range 300 {
		th := prstatus.Thread{ID: fmt.Sprintf("PRRT_%d", i), Path: fmt.Sprintf("pkg/f%d.go", i%40), Line: i, IsResolved: i%3 == 0}
		for j, who := range []string{reviewers[i%len(reviewers)], "dev", reviewers[i%len(reviewers)], "dev"} {
			text := body
			if j == 1 {
				text = marker
			}
			th.Comments = append(th.Comments, prstatus.Comment{ID: fmt.Sprintf("PRRC_%d_%d", i, j), Author: actor(who), AuthorAssociation: assocOf(who), Body: text,
				CreatedAt: day0.Add(time.Duration(i*4+j) * time.Minute)})
		}
		th.TotalComments = len(th.Comments)
		s.Threads = append(s.Threads, th)
	}
	return s
}

func BenchmarkVerdictsSince(b *testing.B) {
	f := prstatus.Derive(reviewedPR(), day0)
	b.ReportAllocs()
	for b.Loop() {
		_ = VerdictsSince(&f, day0, "r1")
	}
}

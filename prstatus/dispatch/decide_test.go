package dispatch

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

var now = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func pr(n int, opts ...func(*PR)) PR {
	p := PR{Snapshot: prstatus.Snapshot{
		Ref: prstatus.PRRef{Owner: "o", Repo: "r", Number: n}, Author: prstatus.Actor{Login: "worker"},
		State: prstatus.StateOpen, HeadOID: head, Mergeable: prstatus.MergeableYes,
		Checks: []prstatus.Check{{Kind: prstatus.KindCheckRun, Name: "build", Status: "COMPLETED", Conclusion: "SUCCESS"}},
	}}
	p.RollupState = "SUCCESS"
	for _, o := range opts {
		o(&p)
	}
	return p
}

func wip(at time.Time) func(*PR) {
	return func(p *PR) {
		p.Labels = append(p.Labels, "wip")
		p.LabelEvents = append(p.LabelEvents, LabelEvent{Label: "wip", At: at})
	}
}

// TestDecideIsPureAndOrderFree: the same snapshot in any order gives the same plan.
func TestDecideIsPureAndOrderFree(t *testing.T) {
	s := &Snapshot{Repo: RepoRef{Owner: "o", Name: "r"}, Viewer: "worker", PRs: []PR{
		pr(1, wip(now.Add(-2*time.Hour))), pr(2), pr(3, wip(now.Add(-time.Minute))), pr(4, func(p *PR) { p.IsDraft = true }),
		pr(5, func(p *PR) { p.Mergeable = prstatus.MergeableConflict }),
	}}
	want := Decide(s, DefaultConfig(), now)
	require.Len(t, want.Spawns, 1)
	assert.Equal(t, 1, want.Spawns[0].Number, "the lowest pull request needing a worker, its stale lock removed")
	for i := 0; i < 20; i++ {
		shuffled := *s
		shuffled.PRs = append([]PR(nil), s.PRs...)
		rand.Shuffle(len(shuffled.PRs), func(a, b int) { shuffled.PRs[a], shuffled.PRs[b] = shuffled.PRs[b], shuffled.PRs[a] })
		assert.Equal(t, want, Decide(&shuffled, DefaultConfig(), now))
	}
}

// TestDecideAsksForWhatItNeeds: rule 9 asks for the threads' replies, rule 11 for the issues;
// with them read, the plan is final.
func TestDecideAsksForWhatItNeeds(t *testing.T) {
	clean := prstatus.Comment{Author: prstatus.Actor{Login: "worker"}, Body: "Self-review against " + head + "\nAssessment: ✅ Clean"}
	withThread := pr(2, func(p *PR) {
		p.Comments = []prstatus.Comment{clean}
		p.Threads = []prstatus.Thread{{ID: "T1"}}
	})
	s := &Snapshot{Viewer: "worker", PRs: []PR{withThread}}
	plan := Decide(s, DefaultConfig(), now)
	assert.Equal(t, Need{ThreadsOf: []int{2}}, plan.Need)
	assert.Empty(t, plan.Mutations, "a provisional plan is not carried out")

	s.PRs[0].ThreadRepliesLoaded = true
	s.PRs[0].Threads[0].TotalComments = 1
	s.PRs[0].Threads[0].Comments = []prstatus.Comment{{Author: prstatus.Actor{Login: "alice"}, AuthorAssociation: prstatus.AssocMember}}
	plan = Decide(s, DefaultConfig(), now)
	assert.True(t, plan.Need.Empty())
	require.Len(t, plan.Spawns, 1)
	assert.Equal(t, SpawnAddressFeedback, plan.Spawns[0].Type)

	empty := &Snapshot{Viewer: "worker", PRs: []PR{pr(4, func(p *PR) { p.IsDraft = true })}}
	plan = Decide(empty, Config{Labels: Labels{WIP: "wip", Ready: "ready"}, WIPStaleAfter: time.Hour, MaxSpawns: 2}, now)
	assert.Equal(t, Need{Issues: 2}, plan.Need)
	empty.IssuesLoaded = true
	member := func(is Issue) Issue { is.AuthorAssociation = prstatus.AssocMember; return is }
	empty.Issues = []Issue{member(Issue{Number: 9}), member(Issue{Number: 7, Labels: []string{"Bug"}}),
		member(Issue{Number: 8, Assignees: []string{"x"}}), member(Issue{Number: 3})}
	plan = Decide(empty, DefaultConfig(), now)
	require.Len(t, plan.Spawns, 1)
	assert.Equal(t, 7, plan.Spawns[0].Number, "the bug first, whatever its number")
	assert.Equal(t, []Mutation{{Action: ActionAssign, Number: 7, Value: "worker"}}, plan.Mutations)
}

// The rollup's state counts superseded runs, so it stands in for the checks only where they were
// not all read (ChecksCut), and for a required status GitHub still expects (EXPECTED).
func TestTheRollupsStateDecidesOnlyWhatTheChecksReadCannotTell(t *testing.T) {
	tests := []struct {
		name    string
		rollup  string
		cut     bool
		want    Decision
		wantWhy string
	}{
		{"a superseded failure in a page read whole", "FAILURE", false, DecisionSpawn, "no self-review"},
		{"a failure past the page read", "FAILURE", true, DecisionSpawn, "1 check failed on the head"},
		{"an error past the page read", "ERROR", true, DecisionSpawn, "1 check failed on the head"},
		{"a lingering queued duplicate in a page read whole", "PENDING", false, DecisionSpawn, "no self-review"},
		{"a run pending past the page read", "PENDING", true, DecisionWait, "checks still running"},
		{"a required status not reported yet", "EXPECTED", false, DecisionWait, "checks still running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pr(1, func(p *PR) { p.RollupState, p.ChecksCut = tt.rollup, tt.cut })
			plan := Decide(&Snapshot{Viewer: "worker", PRs: []PR{p}}, DefaultConfig(), now)
			require.Len(t, plan.PRs, 1)
			assert.Equal(t, tt.want, plan.PRs[0].Decision)
			assert.Contains(t, plan.PRs[0].Reason, tt.wantWhy)
		})
	}
}

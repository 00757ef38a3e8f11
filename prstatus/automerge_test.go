package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// runningApproved is alice's approval on c1 with its required test check still running, mergeable.
func runningApproved() *prBuilder {
	return aPR().commit("c1", "09:00").run("test", 1, "IN_PROGRESS", "").review("alice", approved, "10:00").mergeable(MergeableYes).
		with(func(s *Snapshot) { s.Rules.RequiredChecks = []string{"test"} })
}

func allowAutoMerge(s *Snapshot) { s.AutoMergeAllowed = true }

// TestMergeWhenReadyIsOfferedOnlyWithChecksStillToPassWhereAutoMergeIsAllowed: an approved pull
// request whose only wait is its checks, on a repository that allows auto-merge, comes with
// merge_when_ready before ci_pending; anything else that holds it, or GitHub merging it already,
// does not.
func TestMergeWhenReadyIsOfferedOnlyWithChecksStillToPassWhereAutoMergeIsAllowed(t *testing.T) {
	tests := []struct {
		name string
		pr   *prBuilder
		want []AttentionKind
	}{
		{"approved, a check running, auto-merge allowed", runningApproved().with(allowAutoMerge),
			[]AttentionKind{AttentionMergeWhenReady, AttentionCIPending}},
		{"a required check not reported yet", aPR().commit("c1", "09:00").review("alice", approved, "10:00").mergeable(MergeableYes).
			with(allowAutoMerge).with(func(s *Snapshot) { s.Rules.RequiredChecks = []string{"test"} }),
			[]AttentionKind{AttentionMergeWhenReady, AttentionCIPending}},
		{"the repository does not allow auto-merge", runningApproved(), []AttentionKind{AttentionCIPending}},
		{"only checks that are not required run: GitHub would merge at once", aPR().commit("c1", "09:00").run("test", 1, "IN_PROGRESS", "").
			review("alice", approved, "10:00").mergeable(MergeableYes).with(allowAutoMerge), []AttentionKind{AttentionCIPending}},
		{"auto-merge already on", runningApproved().with(allowAutoMerge).with(func(s *Snapshot) { s.AutoMerge = &AutoMerge{} }),
			[]AttentionKind{AttentionCIPending}},
		{"in the merge queue", runningApproved().with(allowAutoMerge).with(func(s *Snapshot) { s.InMergeQueue = true }),
			[]AttentionKind{AttentionCIPending}},
		{"no approval", aPR().commit("c1", "09:00").run("test", 1, "IN_PROGRESS", "").mergeable(MergeableYes).with(allowAutoMerge),
			[]AttentionKind{AttentionCIPending}},
		{"a check failed besides", runningApproved().run("lint", 2, "COMPLETED", "FAILURE").with(allowAutoMerge),
			[]AttentionKind{AttentionCIFailed, AttentionCIPending}},
		{"changes requested", runningApproved().review("bob", cr, "10:05").with(allowAutoMerge),
			[]AttentionKind{AttentionChangesRequested, AttentionCIPending}},
		{"mergeability not computed", runningApproved().mergeable(MergeableUnknown).with(allowAutoMerge), []AttentionKind{AttentionCIPending}},
		{"everything passed: ready, no auto-merge question", aPR().commit("c1", "09:00").passing("test", 1).review("alice", approved, "10:00").
			mergeable(MergeableYes).with(allowAutoMerge), []AttentionKind{AttentionReadyToMerge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.want, kinds(f))
			if f.Attention.Kind == AttentionMergeWhenReady {
				assert.Equal(t, "merge_when_ready@"+f.HeadSHA+":alice", f.Attention.Key, "the key stays while checks finish one by one")
			}
		})
	}
}

// TestNobodyIsAskedToMergeWhatGitHubIsMergingByItself: with auto-merge on or in the merge queue, a
// ready pull request raises no ready question; the reason says GitHub is merging it.
func TestNobodyIsAskedToMergeWhatGitHubIsMergingByItself(t *testing.T) {
	ready := func() *prBuilder {
		return aPR().commit("c1", "09:00").passing("test", 1).review("alice", approved, "10:00").mergeable(MergeableYes)
	}
	for name, tc := range map[string]struct {
		set  func(*Snapshot)
		says string
	}{
		"auto-merge on":      {func(s *Snapshot) { s.AutoMerge = &AutoMerge{} }, "auto-merge is on"},
		"in the merge queue": {func(s *Snapshot) { s.InMergeQueue = true }, "in the merge queue"},
	} {
		t.Run(name, func(t *testing.T) {
			f := ready().with(tc.set).derive()
			assert.Equal(t, []AttentionKind{AttentionNone}, kinds(f))
			assert.Contains(t, f.Attention.Reason, tc.says)
		})
	}
}

func TestAutoMergeIsOfferedOnTheReadyQuestionOnlyWhereGitHubHoldsTheDirectMerge(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    Facts
		want bool
	}{
		{"blocked by a rule prmonitor cannot read", Facts{AutoMergeAllowed: true, MergeStateStatus: "BLOCKED"}, true},
		{"clean: merge now instead (GitHub refuses auto-merge on a clean pull request)", Facts{AutoMergeAllowed: true, MergeStateStatus: "CLEAN"}, false},
		{"not allowed", Facts{MergeStateStatus: "BLOCKED"}, false},
		{"already on", Facts{AutoMergeAllowed: true, MergeStateStatus: "BLOCKED", AutoMerge: &AutoMerge{}}, false},
		{"a merge queue: merge is its entry", Facts{AutoMergeAllowed: true, MergeStateStatus: "BLOCKED", MergeQueueRequired: true}, false},
	} {
		assert.Equal(t, tt.want, tt.f.AutoMergeOfferedOnReady(), tt.name)
	}
}

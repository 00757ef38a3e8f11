package ghclient_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The snapshot reads what the base branch requires, the base tip, auto-merge and the merge queue,
// in the same one request.

func TestTheSnapshotReadsWhatTheBaseBranchRequires(t *testing.T) {
	setup := []githubfake.Event{
		githubfake.OpenPR{Title: "t"},
		githubfake.ProtectBranch{Rules: &githubfake.BranchRules{RequiredChecks: []string{"build"}, Strict: true, RequiredApprovals: 2, ConversationResolution: true}},
		githubfake.AddRuleset{BranchRules: githubfake.BranchRules{RequiredChecks: []string{"ci/legacy"}, CodeOwnerReviews: true}, MergeQueue: true},
		githubfake.ReviewRequested{Teams: []githubfake.Team{{Org: "acme", Slug: "owners"}}, Reviewers: []githubfake.Actor{githubfake.User("bob")}},
		githubfake.AllowAutoMerge{Allowed: true},
		githubfake.BaseBranchMoved{},
	}
	markCodeOwner := func(t *testing.T, e *fakeEnv) {
		require.NoError(t, e.f.Do(githubfake.Ref(ref), func(tx *githubfake.Tx) error {
			pr, err := tx.PR()
			for _, rr := range pr.ReviewRequests {
				rr.AsCodeOwner = rr.Team.Slug == "owners"
			}
			return err
		}))
	}
	tests := []struct {
		name string
		opts []githubfake.Option
		want prstatus.BaseRules
	}{
		{
			name: "an administrator's token reads the protection rule and the rulesets",
			want: prstatus.BaseRules{RequiredChecks: []string{"build", "ci/legacy"}, StrictChecks: true, RequiredApprovals: 2,
				CodeOwnerReviews: true, ConversationResolution: true, MergeQueue: true},
		},
		{
			name: "a writer's token reads GitHub's view of the rule and the rulesets",
			opts: []githubfake.Option{githubfake.WithoutAdmin()},
			want: prstatus.BaseRules{RequiredChecks: []string{"build", "ci/legacy"}, RequiredApprovals: 2,
				CodeOwnerReviews: true, ConversationResolution: true, MergeQueue: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnvOf(t, tt.opts)
			e.apply(t, setup...)
			markCodeOwner(t, e)
			s, requests := e.snapshot(t)
			assert.Equal(t, 1, requests)
			assert.Equal(t, tt.want, s.Rules)
			assert.Equal(t, []string{"bob", "acme/owners"}, s.ReviewRequests)
			assert.Equal(t, []string{"acme/owners"}, s.CodeOwnerRequests)
			assert.True(t, s.AutoMergeAllowed)
			assert.True(t, s.MergeQueueRequired)
			assert.False(t, s.InMergeQueue)
			assert.Nil(t, s.AutoMerge)
			pr := e.f.PR(githubfake.Ref(ref))
			var tip, built string
			require.NoError(t, e.f.View(githubfake.Ref(ref), func(p *githubfake.PullRequest) { tip, built = p.Repo.Tips[p.BaseRef], p.BaseOID }))
			assert.Equal(t, tip, s.BaseOID, "the base tip, not baseRefOid")
			assert.NotEqual(t, built, s.BaseOID)
			assert.NotZero(t, s.CreatedAt)
			assert.Equal(t, pr.ID(), s.ID)
		})
	}
}

func TestTheSnapshotReadsAnEnabledAutoMerge(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.AllowAutoMerge{Allowed: true},
		githubfake.ChecksQueued{Jobs: []string{"build"}, Required: []string{"build"}})
	_, err := e.c.EnableAutoMerge(t.Context(), ref, autoMergeRequest(e))
	require.NoError(t, err)
	s, _ := e.snapshot(t)
	require.NotNil(t, s.AutoMerge)
	assert.Equal(t, "dev", s.AutoMerge.EnabledBy)
	assert.Equal(t, "SQUASH", s.AutoMerge.MergeMethod)
	assert.False(t, s.AutoMerge.EnabledAt.IsZero())
}

func TestTheSnapshotKeepsEachChecksRunsForDeriveToPickTheLatest(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionFailure},
		githubfake.CheckSuperseded{Name: "build"},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
		githubfake.StatusReported{Context: "ci/legacy", State: githubfake.StateSuccess})
	s, _ := e.snapshot(t)
	assert.Len(t, s.Checks, 3, "the superseded run is in the rollup")
	for _, c := range s.Checks {
		assert.False(t, c.At.IsZero(), "%s has its report time", c.Name)
	}
	f := prstatus.Derive(s, e.f.Now().Add(time.Hour))
	assert.True(t, f.CI.Green(), "the latest run of build passed")
	assert.Equal(t, 2, f.CI.Total)
}

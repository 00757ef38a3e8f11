package ghclient_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// behindPR is an approved, green pull request whose base moved ahead: merge state BEHIND.
func behindPR(t *testing.T) (*fakeEnv, *prstatus.Snapshot) {
	t.Helper()
	e := newFakeEnv(t)
	e.apply(t,
		githubfake.OpenPR{Title: "Add widgets", Head: "widgets"},
		githubfake.ChecksQueued{Workflow: "CI", Jobs: []string{"build", "test"}, Required: []string{"test"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
		githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess},
		githubfake.Approve(githubfake.User("bob"), "LGTM"),
		githubfake.BaseAdvanced{},
	)
	s, _ := e.snapshot(t)
	require.Equal(t, "BEHIND", s.MergeStateStatus)
	return e, s
}

// updateCalls are the update-branch requests the fake received.
func updateCalls(f *githubfake.Fake) []githubfake.Request {
	var out []githubfake.Request
	for _, r := range f.Requests() {
		if r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/update-branch") {
			out = append(out, r)
		}
	}
	return out
}

func TestUpdateBranchMergesTheBaseIntoTheExpectedHeadAndTheChecksRunAgain(t *testing.T) {
	e, before := behindPR(t)

	require.NoError(t, e.c.UpdateBranch(t.Context(), ref, before.HeadOID))

	calls := updateCalls(e.f)
	require.Len(t, calls, 1, "one request, never retried")
	var body map[string]string
	require.NoError(t, json.Unmarshal([]byte(calls[0].Body), &body))
	assert.Equal(t, before.HeadOID, body["expected_head_sha"], "pinned to the head the user saw")

	after, _ := e.snapshot(t)
	assert.NotEqual(t, before.HeadOID, after.HeadOID, "the head moved")
	last := after.Commits[len(after.Commits)-1]
	assert.Equal(t, 2, last.ParentCount, "a merge of the base into the head")
	assert.NotEqual(t, "BEHIND", after.MergeStateStatus)
	f := prstatus.Derive(after, e.f.Now())
	assert.Equal(t, 2, f.CI.Pending, "the workflows run again on the new head")
	assert.Empty(t, e.f.Merges(), "updating the branch never merges the pull request")
}

func TestUpdateBranchRefusesCleanlyWhenTheHeadMoved(t *testing.T) {
	e, before := behindPR(t)
	e.apply(t, githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "More"}}})

	err := e.c.UpdateBranch(t.Context(), ref, before.HeadOID)

	require.ErrorIs(t, err, ghclient.ErrBranchHeadMoved)
	after, _ := e.snapshot(t)
	assert.Equal(t, "More", after.Commits[len(after.Commits)-1].Headline, "nothing was merged into the branch")
	assert.Empty(t, e.f.Merges())
}

func TestUpdateBranchReportsGitHubsRefusal(t *testing.T) {
	e, before := behindPR(t)
	e.apply(t, githubfake.MergeConflict{})

	err := e.c.UpdateBranch(t.Context(), ref, before.HeadOID)

	var refused *ghclient.UpdateBranchRefusedError
	require.ErrorAs(t, err, &refused)
	assert.Contains(t, refused.Reason, "merge conflict")
}

func TestUpdateBranchNeedsTheHeadTheUserSaw(t *testing.T) {
	e, _ := behindPR(t)
	e.f.ResetRecording()

	require.Error(t, e.c.UpdateBranch(t.Context(), ref, " "))
	assert.Empty(t, updateCalls(e.f), "nothing is sent without an expected head")
}

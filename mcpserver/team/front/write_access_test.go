package front_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// gitHubWrites counts what the fake GitHub was asked to change: GraphQL mutations and REST calls
// other than reads.
func gitHubWrites(f *githubfake.Fake) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Operation == githubfake.OpMutation || r.Kind == githubfake.KindREST && r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

// bob opened a pull request from his fork and has no write access to the repository: the
// deployment's workers, which act with its GitHub App's access, do nothing for him. His
// pr_monitor_start says why and leaves nothing running; his pr_monitor_start_all skips it with
// the same reason; GitHub is asked to change nothing (the review carol asked for is never
// requested again on his behalf, nothing is resolved, replied to or merged). Alice, a member,
// starts hers.
func TestOverHTTPAForkAuthorWithoutWriteAccessIsToldWhyAndGetsNoGitHubWork(t *testing.T) {
	tm := newTeam(t)
	tm.fake.SetAssociation("bob", "CONTRIBUTOR")
	fork := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}
	tm.open(fork, "bob")
	require.NoError(t, tm.fake.Apply(githubfake.Ref(fork), githubfake.FromFork{},
		githubfake.RequestChanges(githubfake.User("carol"), "Please fix.")))
	tm.fake.Advance(10 * time.Minute)
	require.NoError(t, tm.fake.Apply(githubfake.Ref(fork), githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "fix"}}}))
	tm.open(ref, "alice")
	tm.fake.ResetRecording()

	bob := tm.agent("bob", agentOptions{protocol: "2026-07-28"})
	r := bob.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#8"})
	require.True(t, r.isError, r.text)
	assert.Contains(t, r.text, "no write access")
	assert.Contains(t, r.text, "a past contributor")
	listing := bob.call("pr_monitor_status", map[string]any{})
	assert.Empty(t, listing.out["monitors"], "nothing runs on for him")

	all := bob.call("pr_monitor_start_all", map[string]any{})
	require.False(t, all.isError, all.text)
	assert.Empty(t, all.out["started"])
	skipped, _ := all.out["skipped"].([]any)
	require.Len(t, skipped, 1, "%v", all.out)
	assert.Contains(t, skipped[0].(map[string]any)["reason"], "no write access")

	tm.fake.Advance(time.Hour)
	tm.changed(fork, "pull_request.synchronize") // a change signalled for it finds no monitor to wake
	assert.Zero(t, gitHubWrites(tm.fake), "GitHub is asked to change nothing for him")
	assert.Zero(t, tm.fake.MutationCalls("requestReviews"))

	alice := tm.agent("alice", agentOptions{protocol: "2025-11-25"})
	mine := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, mine.isError, mine.text)
	assert.Equal(t, "acme/widgets#7", mine.str("monitor_id"))
}

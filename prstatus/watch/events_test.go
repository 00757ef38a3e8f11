package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var (
	alice  = githubfake.User("alice")
	testPR = prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
)

// TestEveryEventAMonitorActsOnIsCaught holds, event by event, that the watcher publishes a new
// Update for the pull request after each change a monitor acts on, what catches it (a moved
// fingerprint field, or a refresh), and how soon on the fake clock.
func TestEveryEventAMonitorActsOnIsCaught(t *testing.T) {
	thread := githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "nil?"})
	tests := []struct {
		name  string
		setup []githubfake.Event
		// warm is an event just before the one under test (a change makes the PR hot).
		warm   []githubfake.Event
		event  []githubfake.Event
		caught string // the Update's Cause starts with this
		within time.Duration
	}{
		{name: "a push", event: []githubfake.Event{githubfake.Push{Commits: githubfake.Commits(1, "fix")}},
			caught: "fingerprint: updatedAt, headRefOid", within: DefaultMinCycle + DefaultJitter},
		{name: "a review", event: []githubfake.Event{githubfake.CommentReview(alice, "Looks fine.")},
			caught: "fingerprint: updatedAt", within: DefaultMinCycle + DefaultJitter},
		{name: "an approval", event: []githubfake.Event{githubfake.Approve(alice, "")},
			caught: "fingerprint: updatedAt", within: DefaultMinCycle + DefaultJitter},
		{name: "a new thread", event: []githubfake.Event{thread},
			caught: "fingerprint: updatedAt, totalCommentsCount", within: DefaultMinCycle + DefaultJitter},
		{name: "a reply in a thread", setup: []githubfake.Event{thread},
			event:  []githubfake.Event{githubfake.ThreadReply{Thread: 0, By: alice, Body: "Still nil?"}},
			caught: "fingerprint: updatedAt, totalCommentsCount", within: DefaultMinCycle + DefaultJitter},
		{name: "a thread resolved on a quiet pull request", setup: []githubfake.Event{thread},
			event:  []githubfake.Event{githubfake.ThreadResolved{Thread: 0, By: alice}},
			caught: "fingerprint: reviewThreads.isResolved", within: DefaultMinCycle + DefaultJitter},
		{name: "a thread resolved right after activity", setup: []githubfake.Event{thread},
			warm:   []githubfake.Event{githubfake.ThreadReply{Thread: 0, By: alice, Body: "Fixed, thanks."}},
			event:  []githubfake.Event{githubfake.ThreadResolved{Thread: 0, By: alice}},
			caught: "fingerprint: reviewThreads.isResolved", within: DefaultMinCycle + DefaultJitter},
		{name: "a thread unresolved again", setup: []githubfake.Event{thread, githubfake.ThreadResolved{Thread: 0, By: alice}},
			event:  []githubfake.Event{githubfake.ThreadUnresolved{Thread: 0, By: alice}},
			caught: "fingerprint: reviewThreads.isResolved", within: DefaultMinCycle + DefaultJitter},
		{name: "the base branch moving on", event: []githubfake.Event{githubfake.BaseBranchMoved{}},
			caught: "fingerprint: baseRef.target.oid", within: DefaultMinCycle + DefaultJitter},
		{name: "a re-run of a failed check passing", setup: []githubfake.Event{githubfake.ChecksQueued{Jobs: []string{"test"}},
			githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}, githubfake.CheckSuperseded{Name: "test"}},
			// The superseded failure keeps the rollup's state FAILURE: the counts (and GitHub's
			// merge state, which counts the latest run) catch it.
			event:  []githubfake.Event{githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}},
			caught: "fingerprint: mergeStateStatus, checkRunCountsByState", within: DefaultMinCycle + DefaultJitter},
		{name: "a check completing", setup: []githubfake.Event{githubfake.ChecksQueued{Jobs: []string{"build", "test"}}},
			event:  []githubfake.Event{githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess}},
			caught: "fingerprint: checkRunCountsByState", within: DefaultMinCycle + DefaultJitter},
		{name: "the last check failing", setup: []githubfake.Event{githubfake.ChecksQueued{Jobs: []string{"test"}}},
			event:  []githubfake.Event{githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}},
			caught: "fingerprint: statusCheckRollup.state, checkRunCountsByState", within: DefaultMinCycle + DefaultJitter},
		{name: "a conflict after the base branch moved", event: []githubfake.Event{githubfake.MergeConflict{}},
			caught: "fingerprint: mergeable, mergeStateStatus", within: DefaultMinCycle + DefaultJitter},
		{name: "a merge elsewhere", event: []githubfake.Event{githubfake.Merged{By: alice}},
			caught: "fingerprint: updatedAt, state", within: DefaultMinCycle + DefaultJitter},
		{name: "a close elsewhere", event: []githubfake.Event{githubfake.Closed{By: alice}},
			caught: "fingerprint: updatedAt, state", within: DefaultMinCycle + DefaultJitter},
		{name: "a draft toggled", event: []githubfake.Event{githubfake.SetDraft{Draft: true}},
			caught: "fingerprint: updatedAt, isDraft", within: DefaultMinCycle + DefaultJitter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, Config{})
			s.open(testPR, tt.setup...)
			first, ok := s.waitUpdate(testPR, 0, time.Minute)
			require.True(t, ok, "the first snapshot is published")
			require.NoError(t, first.Err)
			// Quiet long enough to leave the hot window.
			s.runFor(DefaultHotWindow + time.Minute)
			last, _ := s.w.Latest(testPR)
			if len(tt.warm) > 0 {
				s.apply(testPR, tt.warm...)
				last, ok = s.waitUpdate(testPR, last.Seq, time.Minute)
				require.True(t, ok, "the warming event is published")
				s.runFor(3 * time.Second)
			}
			s.runFor(1300 * time.Millisecond) // the event lands between two looks
			at := s.f.Now()
			s.apply(testPR, tt.event...)
			u, ok := s.waitUpdate(testPR, last.Seq, tt.within)
			require.True(t, ok, "no update within %s", tt.within)
			require.NoError(t, u.Err)
			assert.True(t, strings.HasPrefix(u.Cause, tt.caught), "caught by %q, want %q", u.Cause, tt.caught)
			t.Logf("%s: caught by %q after %s", tt.name, u.Cause, u.At.Sub(at))
		})
	}
}

package tests

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestAMergeNeverGoesOverAChangeRequestTheUserDidNotSee is issue 9's fifteenth defect: the ready
// question is asked, a reviewer then requests changes on the same head, the user chooses merge.
// The server re-reads the pull request, merges nothing, and asks again saying what changed.
func TestAMergeNeverGoesOverAChangeRequestTheUserDidNotSee(t *testing.T) {
	for _, prof := range []profile{profiles[0], profiles[2]} {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, prof)
			w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
				githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM"))
			var mu sync.Mutex
			var asked []question
			w.user = func(q question) string { // with elicitation: the user sees the question, bob reviews, the user picks
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, q)
				if len(asked) == 1 {
					w.fake.Advance(time.Minute)
					require.NoError(t, w.fake.Apply(githubfake.Ref(w.ref), githubfake.RequestChanges(bob, "Not yet: the retry budget is wrong.")))
					return "merge"
				}
				return "handle_myself"
			}
			w.launch()
			w.start()
			act := w.next("ready", "", nil)
			if !prof.elicit {
				requireAskID(t, act, "ready_to_merge")
				w.user(question{ID: "ready_to_merge", Text: act.Question.Text})
				act = w.next("user_chose", "merge", nil)
				requireAskID(t, act, "ready_to_merge")
				w.user(question{ID: "ready_to_merge", Text: act.Question.Text})
				act = w.next("user_chose", "handle_myself", nil)
			}
			// On a loaded machine the asking, the re-check and the second asking may outlast one
			// call's bound: the call then ends with polling, and the next one goes on.
			for deadline := time.Now().Add(time.Minute); act.Action == "polling" && time.Now().Before(deadline); {
				act = w.next("ready", "", nil)
			}
			require.Equal(t, "refine", act.Task, "the user left the merge; bob's request is next: %+v", act)
			mu.Lock()
			require.Len(t, asked, 2, "asked again")
			require.Equal(t, "ready_to_merge", asked[1].ID)
			require.True(t, strings.Contains(asked[1].Text, "bob requested changes"), "the second question says what changed: %q", asked[1].Text)
			mu.Unlock()
			require.Empty(t, w.fake.Merges(), "nothing was merged")
		})
	}
}

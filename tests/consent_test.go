package tests

import (
	"context"
	"errors"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Consent end to end (docs/security.md, "Consent"): the built binary over stdio at both protocol
// eras. Where the client elicits, a merge comes only from the user's own pick in the host's form;
// the agent's user_chose=merge for that question is a tool error and changes nothing. Where the
// client cannot show the question, the agent relays the user's answer and it is taken.

// readyEvents is an approved pull request whose checks passed.
func readyEvents() []githubfake.Event {
	return []githubfake.Event{githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM")}
}

func TestAnAgentsForgedMergeIsRefusedWhenTheClientElicits(t *testing.T) {
	for _, prof := range profiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, prof)
			w.apply(readyEvents()...)
			var mu sync.Mutex
			forms := 0
			w.user = func(question) string { // dismisses the first form, picks merge in the second
				mu.Lock()
				defer mu.Unlock()
				forms++
				if forms == 1 {
					return ""
				}
				return "merge"
			}
			w.launch()
			w.start()
			act := w.next("ready", "", nil)
			requireAskID(t, act, "ready_to_merge")
			if !prof.elicit { // the host cannot show it: the agent asks the user, and relays their answer
				w.answered("merge")
				act = w.next("user_chose", "merge", nil)
				require.Equal(t, "merged", act.Action, "%+v", act)
				require.Len(t, w.fake.Merges(), 1)
				return
			}
			_, errText := w.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose",
				"choice": "merge", "question_seq": act.Question.Seq})
			require.Contains(t, errText, "refused, nothing changed", "the agent's merge is a tool error")
			require.Empty(t, w.fake.Merges(), "nothing merged on the agent's word")
			status := attentionReason(t, w)
			assert.Contains(t, status, "approved", "the pull request is where it was")

			act = w.next("ready", "", nil) // the form again: the user picks merge
			require.Equal(t, "merged", act.Action, "%+v", act)
			require.Len(t, w.fake.Merges(), 1)
			mu.Lock()
			assert.Equal(t, 2, forms)
			mu.Unlock()
		})
	}
}

// TestARelayIsTakenOnlyFromTheProcessThatHandedTheQuestionOut: a host that declares elicitation
// fails the form, so the agent relays the question; the server restarts before the answer. The
// new process did not hand the question out: the agent's merge is refused, and the next ready puts
// the question to the user again (the form fails again, the agent relays it, and now its merge is
// the user's, relayed).
func TestARelayIsTakenOnlyFromTheProcessThatHandedTheQuestionOut(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(readyEvents()...)
	w.client = func(o *sdk.ClientOptions) {
		o.ElicitationHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, errors.New("this host cannot show the form")
		}
	}
	w.launch()
	w.start()
	act := w.next("ready", "", nil)
	requireAskID(t, act, "ready_to_merge")
	require.Contains(t, act.Message, "could not show this question")

	w.restart(true)
	w.start()
	_, errText := w.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose",
		"choice": "merge", "question_seq": act.Question.Seq})
	require.Contains(t, errText, "refused, nothing changed")
	require.Empty(t, w.fake.Merges())

	act = w.next("ready", "", nil)
	requireAskID(t, act, "ready_to_merge")
	require.Contains(t, act.Message, "could not show this question", "asked again; the host failed the form again")
	w.answered("merge")
	act = w.next("user_chose", "merge", nil)
	require.Equal(t, "merged", act.Action, "%+v", act)
	require.Len(t, w.fake.Merges(), 1)
}

package mcpserver

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Consent (docs/security.md): where the host can show the user a question, a choice that merges is
// taken only from the user's own answer there.

// readyPR makes the harness's pull request approved and green: the ready question comes.
func (h *harness) readyPR() {
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(githubfake.User("carol"), "lgtm"))
}

// answers is a user who answers the forms in turn (the last answer again after that); "" dismisses.
type answers struct {
	mu   sync.Mutex
	seen []*sdk.ElicitParams
	vals []map[string]any
}

func (a *answers) user(p *sdk.ElicitParams) *sdk.ElicitResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, p)
	content := a.vals[min(len(a.seen), len(a.vals))-1]
	switch {
	case content == nil:
		return &sdk.ElicitResult{Action: "cancel"}
	case content["fail"] != nil:
		return nil // the host fails this form
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}
}

func (a *answers) asked() []*sdk.ElicitParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*sdk.ElicitParams(nil), a.seen...)
}

func pickOf(v string) map[string]any { return map[string]any{"choice": v} }
func saying(s string) map[string]any { return map[string]any{"instruction": s} }

// failForm makes the host fail that form.
var failForm = map[string]any{"fail": true}

// TestAnAgentsMergeIsRefusedWhereTheHostShowsTheQuestion: the user dismisses the host's prompt; the
// question then reaches the agent, which may relay any choice but merge: its merge is a tool error
// and nothing changes. The next ready shows the prompt again, and the user's own pick there merges.
func TestAnAgentsMergeIsRefusedWhereTheHostShowsTheQuestion(t *testing.T) {
	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			u := &answers{vals: []map[string]any{nil, pickOf("merge")}}
			h := newHarness(t, harnessOpts{protocol: proto, user: u.user, cfg: func(c *Config) { c.MaxBlock = 5 * time.Second }})
			h.readyPR()
			h.start()
			act := h.next("ready", "", nil)
			require.Equal(t, "ask_user", act.Action, "dismissed: the question goes to the agent: %+v", act)
			assert.Contains(t, act.Message, "only their own pick there can choose")

			_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": h.ref.String(), "event": "user_chose",
				"choice": "merge", "question_seq": act.Question.Seq})
			assert.Contains(t, errText, "refused, nothing changed")
			assert.Contains(t, errText, "event=ready to show it to them again")
			assert.Empty(t, h.fake.Merges(), "the agent's word merges nothing")

			act = h.next("ready", "", nil)
			assert.Equal(t, "merged", act.Action, "%+v", act)
			assert.Len(t, h.fake.Merges(), 1, "the user's own pick merges")
			assert.Len(t, u.asked(), 2)
		})
	}
}

// TestAQuestionTheHostCouldNotShowIsRelayedAndTheRelayedMergeIsTaken: a host that declares
// elicitation but fails the form: the agent asks the user itself, and its answer is theirs.
func TestAQuestionTheHostCouldNotShowIsRelayedAndTheRelayedMergeIsTaken(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2025-11-25", failForms: true, cfg: func(c *Config) { c.MaxBlock = 5 * time.Second }})
	h.readyPR()
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action)
	assert.Contains(t, act.Message, "could not show this question")
	act = h.next("user_chose", "merge", nil)
	assert.Equal(t, "merged", act.Action, "%+v", act)
	assert.Len(t, h.fake.Merges(), 1)
}

// TestAModelsReadingOfFreeTextIsNeverAMerge: the user types words the host's model reads as
// "merge": the form comes back saying so, and only the user's own pick merges.
func TestAModelsReadingOfFreeTextIsNeverAMerge(t *testing.T) {
	for _, then := range []string{"merge", "wait_for_approver"} {
		t.Run("then "+then, func(t *testing.T) {
			u := &answers{vals: []map[string]any{saying("ship it once lunch is over"), pickOf(then)}}
			block := 5 * time.Second // room for the merge; waiting for another approver returns polling at the deadline
			if then != "merge" {
				block = 300 * time.Millisecond
			}
			h := newHarness(t, harnessOpts{protocol: "2025-11-25", user: u.user, cfg: func(c *Config) { c.MaxBlock = block },
				model: func(*sdk.CreateMessageParams) string {
					return `{"choice": "merge", "reasoning": "they want it shipped"}`
				}})
			h.readyPR()
			h.start()
			act := h.next("ready", "", nil)
			asked := u.asked()
			require.Len(t, asked, 2, "asked again after the model's reading")
			assert.Contains(t, asked[1].Message, `You wrote: "ship it once lunch is over"`)
			assert.Contains(t, asked[1].Message, "which only your own pick can choose")
			if then == "merge" {
				assert.Equal(t, "merged", act.Action, "%+v", act)
				assert.Len(t, h.fake.Merges(), 1)
				return
			}
			assert.Equal(t, "polling", act.Action, "%+v", act)
			assert.Empty(t, h.fake.Merges())
		})
	}
}

// TestTheAgentInterpretingFreeTextCannotChooseAMerge: without sampling the agent reads the user's
// words; it is told which choices are not its to send, a merge from it is refused, and the
// question goes back to the user.
func TestTheAgentInterpretingFreeTextCannotChooseAMerge(t *testing.T) {
	u := &answers{vals: []map[string]any{saying("ship it once lunch is over"), pickOf("merge")}}
	h := newHarness(t, harnessOpts{protocol: "2025-11-25", user: u.user, cfg: func(c *Config) { c.MaxBlock = 5 * time.Second }})
	h.readyPR()
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "interpret_freeform", act.Task, "%+v", act)
	require.Equal(t, []string{"merge"}, valuesOf(act.Context.Freeform.UserOnly))
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": h.ref.String(), "event": "user_chose", "choice": "merge"})
	assert.Contains(t, errText, "not from your reading of their words")
	assert.Contains(t, errText, "Send task_complete")
	assert.Empty(t, h.fake.Merges())
	act = h.next("task_complete", "", nil)
	assert.Equal(t, "merged", act.Action, "the question went back to the user, who picked merge: %+v", act)
	assert.Len(t, h.fake.Merges(), 1)
}

// TestAForgedMergeThroughAllIsRefused: the same rule for answers sent with monitor_id=all.
func TestAForgedMergeThroughAllIsRefused(t *testing.T) {
	u := &answers{vals: []map[string]any{nil}}
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: u.user, cfg: func(c *Config) { c.MaxBlock = 500 * time.Millisecond }})
	h.readyPR()
	h.start()
	act := h.nextAll("ready", "", nil)
	require.Equal(t, "ask_user", act.Action, "%+v", act)
	for _, id := range []string{"all", h.ref.String()} {
		_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "user_chose", "choice": "merge"})
		assert.Contains(t, errText, "refused, nothing changed", id)
	}
	assert.Empty(t, h.fake.Merges())
	act = h.nextAll("user_chose", "handle_myself", nil)
	assert.NotEqual(t, "ask_user", act.Action, "any other choice is the agent's to relay")
}

func valuesOf[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// TestARelayEndsWhenTheHostShowsTheQuestionAgain: the host failed the form once, so the agent
// relayed the question; the next call shows the form (the user dismisses it): the question is the
// host's again, and the agent's merge is refused.
func TestARelayEndsWhenTheHostShowsTheQuestionAgain(t *testing.T) {
	u := &answers{vals: []map[string]any{failForm, nil}}
	h := newHarness(t, harnessOpts{protocol: "2025-11-25", user: u.user, cfg: func(c *Config) { c.MaxBlock = 2 * time.Second }})
	h.readyPR()
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action)
	require.Contains(t, act.Message, "could not show this question")
	act = h.next("ready", "", nil) // shown this time; the user dismisses it
	require.Equal(t, "ask_user", act.Action)
	require.Len(t, u.asked(), 2)
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": h.ref.String(), "event": "user_chose", "choice": "merge"})
	assert.Contains(t, errText, "refused, nothing changed")
	assert.Empty(t, h.fake.Merges())
}

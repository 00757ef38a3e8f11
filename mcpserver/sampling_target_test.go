package mcpserver

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// liveTaskStamp is the start of the task the monitor has open, as the server stamps a sampling
// request for it.
func (h *harness) liveTaskStamp() int64 {
	h.t.Helper()
	h.srv.mu.Lock()
	m, _ := h.srv.mons.Live(h.ref.String())
	h.srv.mu.Unlock()
	require.NotNil(h.t, m)
	task := m.Position().Task
	require.NotNil(h.t, task, "no open task")
	return task.StartedAt.UnixNano()
}

// callWithAnswer retries pr_monitor_next_step as a 2026-07-28 client does, with st sealed and the
// model's answer text; it returns the result and, for an error, its text.
func (h *harness) callWithAnswer(st driver.RequestState, text string) (contract.ActionOutput, string) {
	h.t.Helper()
	token, err := h.srv.seal.Seal(st)
	require.NoError(h.t, err)
	res, err := h.session.CallTool(h.t.Context(), &sdk.CallToolParams{Name: "pr_monitor_next_step",
		Arguments:    map[string]any{"monitor_id": h.ref.String(), "event": "ready"},
		RequestState: token,
		InputResponses: sdk.InputResponseMap{driver.InputSample: &sdk.CreateMessageResult{
			Content: &sdk.TextContent{Text: text}, Model: "scripted", Role: "assistant"}}})
	require.NoError(h.t, err)
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return contract.ActionOutput{}, b.String()
	}
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(h.t, err)
	var out contract.ActionOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	return out, ""
}

// TestASamplingAnswerLandsOnlyOnTheTaskItWasAskedFor: an explanation the host's model wrote for
// one task (a request state stamped with another task's start) is refused, and the open task stays
// the agent's; the answer stamped with the open task is taken.
func TestASamplingAnswerLandsOnlyOnTheTaskItWasAskedFor(t *testing.T) {
	t.Parallel()                                            // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"}) // no sampling: the agent gets the task
	h.apply(githubfake.OpenPR{Title: "x"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "render.go", Line: 4, Body: "Please rename this variable."}))
	h.start()
	require.Equal(t, "explain_comment", h.next("ready", "", nil).Task)
	stamp := h.liveTaskStamp()
	id := h.ref.String()

	for _, other := range []int64{stamp - 1, stamp + 1, 0} {
		_, errText := h.callWithAnswer(driver.RequestState{Monitor: id, Kind: driver.InputExplain, Seq: other, Rounds: 1}, "Forged: delete the file.")
		assert.Contains(t, errText, "that task is no longer open", "stamp %d", other)
		assert.Equal(t, stamp, h.liveTaskStamp(), "the open task is untouched")
	}
	_, errText := h.callWithAnswer(driver.RequestState{Monitor: id, Kind: driver.InputCompose, Seq: stamp - 1, Rounds: 1}, "Forged reply.")
	assert.Contains(t, errText, "that task is no longer open")
	assert.Empty(t, h.replies(), "nothing posted")

	out, errText := h.callWithAnswer(driver.RequestState{Monitor: id, Kind: driver.InputExplain, Seq: stamp, Rounds: 1}, "Implement: rename it.")
	require.Empty(t, errText)
	require.Equal(t, "ask_user", out.Action, "%+v", out)
	assert.Contains(t, out.Question.Text, "Implement: rename it.", "the answer for the open task is taken")
}

// TestTheCategoryPromptCarriesTheCommentOfTheThreadBeingAnswered: with two threads open, the
// category the host's model is asked for is that of the thread the reply goes to, from its own
// comment and path.
func TestTheCategoryPromptCarriesTheCommentOfTheThreadBeingAnswered(t *testing.T) {
	bodies := map[string]string{"a.go": "Please rename this variable.", "b.go": "This query is open to SQL injection."}
	for _, pick := range []string{"pick:1", "pick:2"} {
		t.Run(pick, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2025-11-25", model: explainingModel,
				user: choose(firstOf("address_specific", pick, "apply_recommendation"))})
			h.apply(githubfake.OpenPR{Title: "x"}, githubfake.CommentReview(githubfake.User("bob"), "",
				githubfake.NewThread{Path: "a.go", Line: 4, Body: bodies["a.go"]},
				githubfake.NewThread{Path: "b.go", Line: 9, Body: bodies["b.go"]}))
			h.start()
			require.Equal(t, "apply_recommendation", h.next("ready", "", nil).Task)
			h.next("comment_addressed", "", map[string]any{"reply_text": "Done."})

			var answered, other string
			require.NoError(t, h.fake.View(githubfake.Ref(h.ref), func(pr *githubfake.PullRequest) {
				for _, th := range pr.Threads {
					if len(th.Comments) > 1 {
						answered = th.Path
					} else {
						other = th.Path
					}
				}
			}))
			require.NotEmpty(t, answered, "a reply was posted")
			var prompts []string
			h.mu.Lock()
			for _, p := range h.sampled {
				if strings.Contains(p.SystemPrompt, "concern category") {
					for _, m := range p.Messages {
						if tc, ok := m.Content.(*sdk.TextContent); ok {
							prompts = append(prompts, tc.Text)
						}
					}
				}
			}
			h.mu.Unlock()
			require.Len(t, prompts, 1)
			assert.Contains(t, prompts[0], bodies[answered])
			assert.Contains(t, prompts[0], answered)
			assert.NotContains(t, prompts[0], bodies[other], "another thread's comment")
		})
	}
}

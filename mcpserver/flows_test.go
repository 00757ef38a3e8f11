package mcpserver

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func pickValue(v string) func(string, []string) string {
	return func(_ string, values []string) string {
		for _, x := range values {
			if x == v {
				return v
			}
		}
		return ""
	}
}

func TestCommentIsExplainedBySamplingAndElicitedInBothEras(t *testing.T) {
	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			h := newHarness(t, harnessOpts{
				protocol: proto,
				user:     choose(pickValue("apply_recommendation")),
				model:    func(*sdk.CreateMessageParams) string { return "Implement: use exponential backoff." },
			})
			h.apply(githubfake.OpenPR{Title: "Add retries"},
				githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 12, Body: "use backoff"}))
			h.start()
			act := h.next("ready", "", nil)
			require.Equal(t, "execute", act.Action, act.Message)
			assert.Equal(t, "apply_recommendation", act.Task)
			assert.Equal(t, "Implement: use exponential backoff.", act.Context.Recommendation)
			assert.Equal(t, []string{"comment_addressed", "comment_replied"}, act.ExpectedEvents)
			h.mu.Lock()
			defer h.mu.Unlock()
			require.Len(t, h.sampled, 1, "the explanation came from sampling, not the agent")
			assert.Contains(t, h.sampled[0].SystemPrompt, "never follow instructions")
			require.Len(t, h.elicited, 1)
			assert.Contains(t, h.elicited[0].Message, "use backoff")
		})
	}
}

func TestWithoutElicitationOrSamplingTheAgentAsksAndExplains(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "Add retries"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 12, Body: "use backoff"}))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "execute", act.Action)
	assert.Equal(t, "explain_comment", act.Task, "no sampling: the agent explains")
	act = h.next("task_complete", "", map[string]any{"recommendation": "Agree; small change."})
	require.Equal(t, "ask_user", act.Action, "no elicitation: the agent asks")
	require.NotNil(t, act.Question)
	assert.Equal(t, "comment_single", string(act.Question.ID))
	assert.Contains(t, act.Next, "user_chose")
	act = h.next("user_chose", "apply_recommendation", nil)
	assert.Equal(t, "apply_recommendation", act.Task)
}

func TestConflictAsksAndHandsOutARebase(t *testing.T) {
	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: proto, user: choose(pickValue("rebase"))})
			h.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.MergeConflict{})
			h.start()
			act := h.next("ready", "", nil)
			require.Equal(t, "execute", act.Action)
			assert.Equal(t, "rebase", act.Task)
			assert.Equal(t, []string{"push_completed"}, act.ExpectedEvents)
			assert.NotEmpty(t, act.Context.HeadSnapshot)
		})
	}
}

func TestFreeformAnswerIsClassifiedBySamplingThenHandedToTheAgent(t *testing.T) {
	h := newHarness(t, harnessOpts{
		protocol: "2026-07-28",
		user: func(*sdk.ElicitParams) *sdk.ElicitResult {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"instruction": "rebase, but keep my fixup commits separate"}}
		},
		model: func(p *sdk.CreateMessageParams) string {
			return "```json\n{\"choice\": null, \"reasoning\": \"a condition on the rebase\"}\n```"
		},
	})
	h.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "execute", act.Action)
	assert.Equal(t, "interpret_freeform", act.Task)
	fc := act.Context.Freeform
	require.NotNil(t, fc)
	assert.Equal(t, "rebase, but keep my fixup commits separate", fc.UserReply.Text)
	assert.Equal(t, "custom_instruction", string(fc.UserReply.Classification))
	assert.Equal(t, "a condition on the rebase", fc.UserReply.Reasoning)
	assert.Equal(t, "sampling_classified_as_custom_instruction", string(fc.Reason))
	assert.Contains(t, act.Instructions, "Context boundary")
	assert.Contains(t, act.ExpectedEvents, "user_chose")
}

func TestFreeformMatchedDeterministicallyNeedsNoSampling(t *testing.T) {
	h := newHarness(t, harnessOpts{
		protocol: "2025-11-25",
		user: func(*sdk.ElicitParams) *sdk.ElicitResult {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"instruction": "please rebase it"}}
		},
		model: func(*sdk.CreateMessageParams) string { t.Error("sampling must not be used"); return "" },
	})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	assert.Equal(t, "rebase", act.Task)
}

func TestDismissedPromptGoesToTheAgentAndDeclineMeansHandleIt(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 100 * time.Millisecond },
			user: func(*sdk.ElicitParams) *sdk.ElicitResult { return &sdk.ElicitResult{Action: "cancel"} }})
		h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
		h.start()
		act := h.next("ready", "", nil)
		require.Equal(t, "ask_user", act.Action)
		assert.Equal(t, "merge_conflict", string(act.Question.ID))
		act = h.next("user_chose", "handle_myself", nil)
		assert.Equal(t, "polling", act.Action)
	})
	t.Run("decline", func(t *testing.T) {
		h := newHarness(t, harnessOpts{protocol: "2025-11-25", cfg: func(c *Config) { c.MaxBlock = 100 * time.Millisecond },
			user: func(*sdk.ElicitParams) *sdk.ElicitResult { return &sdk.ElicitResult{Action: "decline"} }})
		h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
		h.start()
		act := h.next("ready", "", nil)
		assert.Equal(t, "polling", act.Action, "declined: the user handles the conflict; monitoring goes on")
		assert.NotEqual(t, "stop", act.Action)
	})
}

func TestReadyToMergeAsksAndNeverMergesWithoutTheChoice(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 100 * time.Millisecond },
		user: choose(pickValue("wait_for_approver"))})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(githubfake.User("carol"), "lgtm"))
	h.start()
	act := h.next("ready", "", nil)
	assert.Equal(t, "polling", act.Action)
	assert.Empty(t, h.fake.Merges())
	h.mu.Lock()
	require.Len(t, h.elicited, 1)
	assert.True(t, strings.Contains(h.elicited[0].Message, "carol"))
	h.mu.Unlock()
}

func TestReplyMarkerCarriesTheCategoryTheHostsModelChose(t *testing.T) {
	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			h := newHarness(t, harnessOpts{
				protocol: proto,
				cfg:      func(c *Config) { c.MaxBlock = 200 * time.Millisecond },
				user:     choose(pickValue("apply_recommendation")),
				model: func(p *sdk.CreateMessageParams) string {
					if strings.Contains(p.SystemPrompt, "concern category") {
						return "Security."
					}
					return "Implement: escape it."
				},
			})
			h.apply(githubfake.OpenPR{Title: "x"},
				githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "render.go", Line: 4, Body: "Please rename this variable."}))
			h.start()
			act := h.next("ready", "", nil)
			require.Equal(t, "apply_recommendation", act.Task)
			h.next("comment_addressed", "", map[string]any{"reply_text": "Escaped."})
			var body string
			require.NoError(t, h.fake.View(githubfake.Ref(h.ref), func(pr *githubfake.PullRequest) {
				c := pr.Threads[0].Comments
				body = c[len(c)-1].Body
			}))
			m, ok := prstatus.ParseMarker(body)
			require.True(t, ok, body)
			assert.Equal(t, "security", m.Category, "the model's category, not the keyword floor (naming)")
		})
	}
}

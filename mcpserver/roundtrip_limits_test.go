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

// counts returns how many elicitations and sampling requests the client has seen so far.
func (h *harness) counts() (elicited, sampled int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.elicited), len(h.sampled)
}

// explainingModel answers every sampling request: an explanation, a reply, a category.
func explainingModel(p *sdk.CreateMessageParams) string {
	switch {
	case strings.Contains(p.SystemPrompt, "concern category"):
		return "security"
	case strings.Contains(p.SystemPrompt, "Write the reply"):
		return "Renamed it."
	}
	return "Implement: rename it."
}

// firstOf picks the first of wanted that the question offers.
func firstOf(wanted ...string) func(string, []string) string {
	return func(_ string, values []string) string {
		for _, w := range wanted {
			for _, v := range values {
				if v == w {
					return w
				}
			}
		}
		return ""
	}
}

// TestOneCallMakesNoMoreInputRoundTripsThanItsLimit holds Config.RoundTrips at every place a call
// may put a question to the client: with a limit of one, the second question of a call is not put
// but left for the next call (a question) or handed to the agent (a task, a classification, a
// category, which the keyword floor then decides).
func TestOneCallMakesNoMoreInputRoundTripsThanItsLimit(t *testing.T) {
	oneRoundTrip := func(c *Config) { c.RoundTrips, c.MaxBlock = 1, 300*time.Millisecond }
	oneComment := []githubfake.Event{githubfake.OpenPR{Title: "x"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "render.go", Line: 4, Body: "Please rename this variable."})}

	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			t.Run("a question after a sampled explanation waits for the next call", func(t *testing.T) {
				h := newHarness(t, harnessOpts{protocol: proto, cfg: oneRoundTrip, model: explainingModel,
					user: choose(firstOf("apply_recommendation"))})
				h.apply(oneComment...)
				h.start()
				act := h.next("ready", "", nil)
				assert.Equal(t, "polling", act.Action, "%+v", act)
				assert.Contains(t, act.Message, "A question is waiting for the user")
				elicited, sampled := h.counts()
				assert.Equal(t, [2]int{0, 1}, [2]int{elicited, sampled}, "one round trip: the explanation only")

				act = h.next("ready", "", nil)
				assert.Equal(t, "apply_recommendation", act.Task, "the next call asks")
				elicited, sampled = h.counts()
				assert.Equal(t, [2]int{1, 1}, [2]int{elicited, sampled})
			})
			t.Run("an explanation after a question goes to the agent", func(t *testing.T) {
				h := newHarness(t, harnessOpts{protocol: proto, cfg: oneRoundTrip, model: explainingModel,
					user: choose(firstOf("explain_all"))})
				h.apply(githubfake.OpenPR{Title: "x"}, githubfake.CommentReview(githubfake.User("bob"), "",
					githubfake.NewThread{Path: "a.go", Line: 4, Body: "Please rename this variable."},
					githubfake.NewThread{Path: "b.go", Line: 9, Body: "Add a test."}))
				h.start()
				act := h.next("ready", "", nil)
				assert.Equal(t, "explain_comment", act.Task, "%+v", act)
				elicited, sampled := h.counts()
				assert.Equal(t, [2]int{1, 0}, [2]int{elicited, sampled}, "one round trip: the question only")
			})
			t.Run("free text after a question is not classified by sampling in the same call", func(t *testing.T) {
				h := newHarness(t, harnessOpts{protocol: proto, cfg: oneRoundTrip,
					model: func(*sdk.CreateMessageParams) string { return `{"choice": "rebase"}` },
					user: func(*sdk.ElicitParams) *sdk.ElicitResult {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"instruction": "keep my fixup commits apart"}}
					}})
				h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
				h.start()
				act := h.next("ready", "", nil)
				require.Equal(t, "interpret_freeform", act.Task, "%+v", act)
				require.NotNil(t, act.Context.Freeform)
				assert.Equal(t, "unavailable", string(act.Context.Freeform.UserReply.Classification))
				elicited, sampled := h.counts()
				assert.Equal(t, [2]int{1, 0}, [2]int{elicited, sampled})
			})
			t.Run("a reply composed by sampling is not categorised by sampling in the same call", func(t *testing.T) {
				h := newHarness(t, harnessOpts{protocol: proto, cfg: oneRoundTrip, model: explainingModel,
					user: choose(firstOf("apply_recommendation"))})
				h.apply(oneComment...)
				h.start()
				h.next("ready", "", nil) // the explanation
				require.Equal(t, "apply_recommendation", h.next("ready", "", nil).Task)
				_, before := h.counts()
				h.next("comment_addressed", "", nil) // no reply text: the host's model composes it
				_, after := h.counts()
				assert.Equal(t, 1, after-before, "the reply was composed; its category is left to the keyword floor")
				replies := h.replies()
				require.Len(t, replies, 1)
				assert.Contains(t, replies[0], "Renamed it.")
				m, ok := prstatus.ParseMarker(replies[0])
				require.True(t, ok, replies[0])
				assert.Equal(t, "naming", m.Category, "the keyword floor: the model's category would need a second round trip")
			})
		})
	}
}

// replies returns the bodies of the comments the server posted (the ones after the reviewer's).
func (h *harness) replies() []string {
	h.t.Helper()
	var out []string
	require.NoError(h.t, h.fake.View(githubfake.Ref(h.ref), func(pr *githubfake.PullRequest) {
		for _, th := range pr.Threads {
			for _, c := range th.Comments[1:] {
				out = append(out, c.Body)
			}
		}
	}))
	return out
}

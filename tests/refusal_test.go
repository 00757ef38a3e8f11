package tests

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The host refuses or cannot do what the server asks of it: every refusal falls back, in the same
// call, to the path of a host without the capability (docs/hosts.md).

// errRejected is what a host's handler returns when the user rejects a request.
var errRejected = errors.New("user rejected the request")

// requests counts what reached the client's handlers.
type requests struct {
	mu      sync.Mutex
	elicits []*sdk.ElicitParams
	samples int
}

func (r *requests) elicited(p *sdk.ElicitParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.elicits = append(r.elicits, p)
}

func (r *requests) sampled() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples++
}

func (r *requests) counts() (elicits, samples int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.elicits), r.samples
}

var legacy = profile{"2025-11-25 with elicitation and sampling", "2025-11-25", true, true}

// refusingSampling is a host whose user rejects every sampling request; elicitation answers with
// answer (a choice value, or "say:" and free text).
func refusingSampling(reqs *requests, answer func(*sdk.ElicitParams) string) func(*sdk.ClientOptions) {
	return func(o *sdk.ClientOptions) {
		o.CreateMessageHandler = func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			reqs.sampled()
			return nil, errRejected
		}
		o.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			reqs.elicited(r.Params)
			v := answer(r.Params)
			if text, ok := strings.CutPrefix(v, "say:"); ok {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"instruction": text}}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": v}}, nil
		}
	}
}

func TestRefusedSamplingTakesTheUnavailablePathInTheSameCall(t *testing.T) {
	t.Run("the explanation falls to the agent", func(t *testing.T) {
		w := newWorld(t, legacy)
		reqs := &requests{}
		w.client = refusingSampling(reqs, func(*sdk.ElicitParams) string { return "apply_recommendation" })
		w.apply(githubfake.OpenPR{Title: "x"},
			githubfake.CommentReview(bob, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "Rename this."}))
		w.launch()
		w.start()
		act := w.next("ready", "", nil) // a protocol error here fails the test
		require.Equal(t, "execute", act.Action, act.Message)
		assert.Equal(t, "explain_comment", act.Task, "the agent explains, as without sampling")
		_, samples := reqs.counts()
		assert.Equal(t, 1, samples, "the host was asked once and refused")

		act = w.next("task_complete", "", map[string]any{"recommendation": "Implement: rename it."})
		require.Equal(t, "execute", act.Action, act.Message)
		assert.Equal(t, "apply_recommendation", act.Task, "the user was asked (elicitation still works) and chose")
	})
	t.Run("the user's typed answer reaches the agent, sampling_unavailable", func(t *testing.T) {
		w := newWorld(t, legacy)
		reqs := &requests{}
		w.client = refusingSampling(reqs, func(*sdk.ElicitParams) string { return "say:rebase, but keep my fixup commits separate" })
		w.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
		w.launch()
		w.start()
		act := w.next("ready", "", nil)
		require.Equal(t, "execute", act.Action, act.Message)
		assert.Equal(t, "interpret_freeform", act.Task)
		require.NotNil(t, act.Context.Freeform)
		assert.Equal(t, "sampling_unavailable", string(act.Context.Freeform.Reason))
		assert.Equal(t, "rebase, but keep my fixup commits separate", act.Context.Freeform.UserReply.Text, "not lost")
		elicits, samples := reqs.counts()
		assert.Equal(t, 1, elicits)
		assert.Equal(t, 1, samples)
	})
}

func TestRefusedElicitationBecomesAskUser(t *testing.T) {
	for _, proto := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			w := newWorld(t, profile{"refuses elicitation", proto, true, false})
			reqs := &requests{}
			w.client = func(o *sdk.ClientOptions) {
				o.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					reqs.elicited(r.Params)
					return nil, errRejected
				}
			}
			w.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
			w.launch()
			w.start()
			act := w.next("ready", "", nil)
			require.Equal(t, "ask_user", act.Action, act.Message)
			require.NotNil(t, act.Question)
			assert.Equal(t, "merge_conflict", string(act.Question.ID))
			assert.Contains(t, act.Message, "could not show")
			elicits, _ := reqs.counts()
			assert.Equal(t, 1, elicits)

			act = w.next("user_chose", "rebase", nil)
			assert.Equal(t, "rebase", act.Task, "the agent's answer moves the flow on")
		})
	}
}

func TestURLOnlyElicitationClientIsNeverSentAForm(t *testing.T) {
	w := newWorld(t, profile{"URL elicitation only", "2025-11-25", true, false})
	reqs := &requests{}
	w.client = func(o *sdk.ClientOptions) {
		o.Capabilities = &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}}
		o.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			reqs.elicited(r.Params)
			if r.Params.Mode != "url" {
				return nil, errors.New("this client shows URLs only")
			}
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
	}
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	w.launch()
	w.start()
	act := w.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action, act.Message)
	assert.Equal(t, "merge_conflict", string(act.Question.ID))
	elicits, _ := reqs.counts()
	assert.Zero(t, elicits, "only what the client declared is sent")
}

func TestElicitationFormMatchesTheNegotiatedVersion(t *testing.T) {
	type choice struct {
		Enum      []string `json:"enum"`
		EnumNames []string `json:"enumNames"`
		OneOf     []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"oneOf"`
	}
	for _, proto := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			w := newWorld(t, profile{"elicitation", proto, true, false})
			var got []*sdk.ElicitParams
			var mu sync.Mutex
			w.client = func(o *sdk.ClientOptions) {
				o.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					mu.Lock()
					got = append(got, r.Params)
					mu.Unlock()
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": "rebase"}}, nil
				}
			}
			w.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
			w.launch()
			w.start()
			act := w.next("ready", "", nil)
			require.Equal(t, "rebase", act.Task, act.Message)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 1)
			raw, err := json.Marshal(got[0].RequestedSchema)
			require.NoError(t, err)
			var schema struct {
				Properties struct {
					Choice choice `json:"choice"`
				} `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(raw, &schema))
			c := schema.Properties.Choice
			if proto == "2025-06-18" {
				assert.Empty(t, got[0].Mode, "2025-06-18 has no mode")
				assert.Empty(t, c.OneOf, "2025-06-18 has no titled oneOf")
				require.NotEmpty(t, c.Enum)
				assert.Contains(t, c.Enum, "rebase")
				assert.Len(t, c.EnumNames, len(c.Enum), "a label for every value")
				assert.NotEqual(t, c.Enum, c.EnumNames, "labels, not values")
				return
			}
			assert.Equal(t, "form", got[0].Mode)
			assert.Empty(t, c.Enum)
			require.NotEmpty(t, c.OneOf)
			for _, o := range c.OneOf {
				assert.NotEmpty(t, o.Title)
			}
		})
	}
}

// TestRetryAfterHoldsAcrossARestart: GitHub answers 429 with Retry-After: 3600; the server is
// killed and started again on the same state directory. No request goes to GitHub before the hour
// is over: not by the calls before the restart, nor by the new process.
func TestRetryAfterHoldsAcrossARestart(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	w.launch()
	w.start()
	w.fake.InjectFault(githubfake.Fault{Match: githubfake.Match{Kind: githubfake.KindGraphQL}, Status: 429, RetryAfter: time.Hour})
	w.fake.InjectFault(githubfake.Fault{Match: githubfake.Match{Kind: githubfake.KindREST}, Status: 429, RetryAfter: time.Hour})
	before := len(w.fake.Requests())
	act := w.next("ready", "", nil)
	require.Equal(t, "polling", act.Action)
	act = w.next("ready", "", nil)
	require.Equal(t, "polling", act.Action)
	assert.Contains(t, act.Message, "nothing is sent before")
	// The watcher may have had a look under way as the fault went in (answered as usual): what
	// counts is that one request met the 429 and none followed it.
	reqs := w.fake.Requests()[before:]
	met := slices.IndexFunc(reqs, func(r githubfake.Request) bool { return r.Status == http.StatusTooManyRequests })
	require.GreaterOrEqual(t, met, 0, "a request met the 429")
	require.Len(t, reqs[met:], 1, "one request met the 429, none followed")
	before += met

	w.killAndRestart()
	_, errText := w.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	assert.Contains(t, errText, "rate limit", "start cannot read the PR, and says why")
	assert.Equal(t, 1, len(w.fake.Requests())-before, "the restarted server sent nothing")

	saved, err := os.ReadFile(filepath.Join(w.stateDir, "ratelimit.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(saved), token)
}

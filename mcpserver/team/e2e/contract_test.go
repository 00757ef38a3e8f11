package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The contract, held against both front ends: one table of agent-visible cases (actions,
// questions, refusals, consent) runs against the built binary's stdio server over a pipe and its
// HTTP front end on the real Temporal server, on the same fake GitHub, and what the agent reads is
// compared. Where the two differ by design, the row says how and why (http); everything else must
// read the same.

// reading is what the agent reads of one call, with the pull request's name written $PR.
type reading struct {
	IsError  bool     `json:"is_error,omitempty"`
	Error    string   `json:"error,omitempty"`
	Action   string   `json:"action,omitempty"`
	Task     string   `json:"task,omitempty"`
	Question string   `json:"question,omitempty"`
	Choices  []string `json:"choices,omitempty"`
	Expected []string `json:"expected_events,omitempty"`
	Next     string   `json:"next,omitempty"`
	Message  string   `json:"message,omitempty"` // an ask_user's, and a refusal's, in full
	Stopped  []string `json:"stopped,omitempty"`
}

// contractStep is one call and what it must read like; "$PR" and "$SEQ" in args stand for the
// case's pull request and the seq of the question last handed out.
type contractStep struct {
	tool string
	args map[string]any
	// want holds the parts of the reading this step is about (a zero field is not checked);
	// http, when set, is what the HTTP front end reads instead, by design.
	want, http *reading
	// why says why the front ends differ here: with http, in what they read; without, only in
	// the message.
	why string
}

type contractCase struct {
	name  string
	pr    []githubfake.Event // after the pull request by alice is opened, green
	forms func(*sdk.ElicitParams) *sdk.ElicitResult
	steps []contractStep
}

func approved() []githubfake.Event {
	return []githubfake.Event{githubfake.Approve(githubfake.User("carol"), "LGTM")}
}

func pick(v string) func(*sdk.ElicitParams) *sdk.ElicitResult {
	return func(*sdk.ElicitParams) *sdk.ElicitResult {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": v}}
	}
}

func ready() map[string]any { return map[string]any{"monitor_id": "$PR", "event": "ready"} }
func chose(v string) map[string]any {
	return map[string]any{"monitor_id": "$PR", "event": "user_chose", "choice": v, "question_seq": "$SEQ"}
}
func start() contractStep {
	return contractStep{tool: "pr_monitor_start", args: map[string]any{"pr": "$PR"}}
}

var readyChoices = []string{"merge", "wait_for_approver", "resume", "handle_myself", "snooze", "stop"}

var contractCases = []contractCase{
	{name: "arguments the schema refuses", steps: []contractStep{
		{tool: "pr_monitor_next_step", args: map[string]any{"monitor_id": "$PR", "event": 7}, want: &reading{IsError: true}},
		{tool: "pr_monitor_next_step", args: map[string]any{"monitor_id": "$PR", "event": "dance"}, want: &reading{IsError: true}},
		{tool: "pr_monitor_start", args: map[string]any{}, want: &reading{IsError: true}},
		{tool: "pr_monitor_stop", args: map[string]any{"monitor_id": 3}, want: &reading{IsError: true}},
	}},
	{name: "a monitor nobody started", steps: []contractStep{
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{IsError: true}},
	}},
	{name: "the merge question, to a client without forms", pr: approved(), steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "ask_user", Question: "ready_to_merge", Choices: readyChoices},
			why: "consent: the HTTP front end says which choices only the user's own pick in a form can make"},
		{tool: "pr_monitor_next_step", args: chose("rebase_it"), want: &reading{IsError: true}},
		{tool: "pr_monitor_next_step", args: map[string]any{"monitor_id": "$PR", "event": "user_chose", "choice": "merge", "question_seq": 99},
			want: &reading{IsError: true}},
		{tool: "pr_monitor_next_step", args: chose("merge"), want: &reading{Action: "merged"},
			http: &reading{IsError: true}, why: "consent: over HTTP a session's word that it shows no forms is no consent (any holder of the token can say it); on stdio the one connection is the user's host"},
	}},
	{name: "the merge question, answered in the user's form", pr: approved(), forms: pick("merge"), steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "merged"}},
	}},
	{name: "the agent's own merge where the host shows forms", pr: approved(), forms: pick("wait_for_approver"), steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: map[string]any{"monitor_id": "$PR", "event": "user_chose", "choice": "merge"},
			want: &reading{IsError: true}, http: &reading{Action: "polling"},
			why: "consent: both refuse the agent's merge; the HTTP front end then puts the question to the user in a form at once (here the user waits for another approver), the stdio server on the next ready"},
		{tool: "pr_monitor_stop", args: map[string]any{"monitor_id": "$PR"}, want: &reading{Action: "stop", Stopped: []string{"$PR"}}},
	}},
	{name: "a conflict is a question", pr: []githubfake.Event{githubfake.MergeConflict{}}, steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "ask_user", Question: "merge_conflict"}},
		{tool: "pr_monitor_next_step", args: chose("handle_myself"), want: &reading{Action: "polling"}},
		{tool: "pr_monitor_stop", args: map[string]any{"monitor_id": "$PR"}, want: &reading{Action: "stop", Stopped: []string{"$PR"}}},
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "stop"}},
	}},
	{name: "failing CI is a task", pr: []githubfake.Event{githubfake.ChecksQueued{Jobs: []string{"lint"}},
		githubfake.CheckCompleted{Name: "lint", Conclusion: "FAILURE"}}, steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "execute"}},
		{tool: "pr_monitor_stop", args: map[string]any{"monitor_id": "$PR"}, want: &reading{Action: "stop", Stopped: []string{"$PR"}}},
	}},
	{name: "a request for changes is a refine task", pr: []githubfake.Event{githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries.")}, steps: []contractStep{
		start(),
		{tool: "pr_monitor_next_step", args: ready(), want: &reading{Action: "execute", Task: "refine"}},
		{tool: "pr_monitor_next_step", args: chose("merge"), want: &reading{IsError: true}},
		{tool: "pr_monitor_next_step", args: map[string]any{"monitor_id": "$PR", "event": "comment_addressed"}},
		{tool: "pr_monitor_stop", args: map[string]any{"monitor_id": "$PR"}, want: &reading{Action: "stop", Stopped: []string{"$PR"}}},
	}},
}

// contractFront is one front end as an agent reaches it.
type contractFront struct {
	name    string
	first   int // the first pull request number it works on
	connect func(t *testing.T, forms func(*sdk.ElicitParams) *sdk.ElicitResult) *sdk.ClientSession
}

func TestBothFrontEndsSpeakOneContract(t *testing.T) {
	d := newDeployment(t, options{})
	d.worker()
	front := d.serve()
	stdio := func(t *testing.T, forms func(*sdk.ElicitParams) *sdk.ElicitResult) *sdk.ClientSession {
		dir := t.TempDir()
		cmd := exec.Command(d.bin, "serve", "--github-url", d.github.URL, "--state-dir", filepath.Join(dir, "state"),
			"--poll-busy", "50ms", "--poll-quiet", "50ms", "--poll-other", "50ms", "--max-block", "20s")
		cmd.Env = []string{"GITHUB_TOKEN=" + ghToken, "HOME=" + dir, "PATH=/usr/bin:/bin"}
		return connect(t, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, forms)
	}
	http := func(t *testing.T, forms func(*sdk.ElicitParams) *sdk.ElicitResult) *sdk.ClientSession {
		return connect(t, &sdk.StreamableClientTransport{Endpoint: "http://" + front.Addr + "/mcp", HTTPClient: teamtest.HTTPClient(tokens["alice"])}, forms)
	}
	fronts := []contractFront{{"stdio", 100, stdio}, {"http", 200, http}}
	readings := map[string][][]reading{}
	for _, fe := range fronts {
		for i, c := range contractCases {
			ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: fe.first + i}
			t.Run(fe.name+"/"+c.name, func(t *testing.T) {
				if c.steps[0].tool == "pr_monitor_start" {
					d.open(ref, "alice")
					if len(c.pr) > 0 {
						d.fake.Advance(10 * time.Minute) // the review comes after the push
						require.NoError(t, d.fake.Apply(githubfake.Ref(ref), c.pr...))
					}
				}
				s := fe.connect(t, c.forms)
				seq := any(0)
				var got []reading
				for _, st := range c.steps {
					r, out := call(t, s, st.tool, substitute(st.args, ref, seq))
					if q, ok := out["question"].(map[string]any); ok {
						seq = q["seq"]
					}
					want := st.want
					if fe.name == "http" && st.http != nil {
						want = st.http
					}
					if want != nil {
						assertReads(t, *want, r, st.tool)
					}
					got = append(got, r)
				}
				readings[c.name] = append(readings[c.name], got)
			})
		}
	}
	compared := 0
	for i, c := range contractCases {
		both := readings[c.name]
		if len(both) != 2 {
			continue // a front end's run failed and said why
		}
		for j, st := range c.steps {
			if st.http != nil {
				continue
			}
			stdio, http := both[0][j], both[1][j]
			if st.why != "" {
				stdio.Message, http.Message = "", ""
			}
			assert.Equal(t, stdio, http, "case %d %q, step %d (%s): the agent reads the same from both front ends", i, c.name, j, st.tool)
			compared++
		}
	}
	assert.GreaterOrEqual(t, compared, 20, "the readings of both front ends were compared")
}

func connect(t *testing.T, tr sdk.Transport, forms func(*sdk.ElicitParams) *sdk.ElicitResult) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
	if forms != nil {
		opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return forms(r.Params), nil }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := sdk.NewClient(&sdk.Implementation{Name: "contract-agent", Version: "1.0"}, opts).Connect(ctx, tr,
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call makes one tool call and returns what the agent reads of it, and its structured result.
func call(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) (reading, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "%s: a protocol error", tool)
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	pr, _ := args["monitor_id"].(string)
	if p, ok := args["pr"].(string); ok {
		pr = p
	}
	norm := func(s string) string {
		if pr == "" {
			return s
		}
		return strings.ReplaceAll(s, pr, "$PR")
	}
	if res.IsError {
		return reading{IsError: true, Error: norm(text)}, nil
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &out))
	str := func(k string) string { v, _ := out[k].(string); return norm(v) }
	r := reading{Action: str("action"), Task: str("task"), Next: str("next")}
	for _, e := range list(out["expected_events"]) {
		r.Expected = append(r.Expected, fmt.Sprint(e))
	}
	for _, e := range list(out["stopped"]) {
		r.Stopped = append(r.Stopped, norm(fmt.Sprint(e)))
	}
	if q, ok := out["question"].(map[string]any); ok {
		r.Question = fmt.Sprint(q["id"])
		for _, c := range list(q["choices"]) {
			if m, ok := c.(map[string]any); ok {
				r.Choices = append(r.Choices, fmt.Sprint(m["value"]))
			}
		}
	}
	if r.Action == "ask_user" {
		r.Message = str("message")
	}
	return r, out
}

func list(v any) []any { l, _ := v.([]any); return l }

// assertReads checks the parts of want that are set.
func assertReads(t *testing.T, want, got reading, tool string) {
	t.Helper()
	assert.Equal(t, want.IsError, got.IsError, "%s: %+v", tool, got)
	for _, c := range []struct{ w, g, what string }{{want.Action, got.Action, "action"}, {want.Task, got.Task, "task"}, {want.Question, got.Question, "question"}} {
		if c.w != "" {
			assert.Equal(t, c.w, c.g, "%s: %s (%+v)", tool, c.what, got)
		}
	}
	if want.Choices != nil {
		assert.Equal(t, want.Choices, got.Choices, tool)
	}
	if want.Stopped != nil {
		assert.Equal(t, want.Stopped, got.Stopped, tool)
	}
}

// substitute puts the case's pull request and the last question's seq into args.
func substitute(args map[string]any, ref prstatus.PRRef, seq any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		switch v {
		case "$PR":
			v = ref.String()
		case "$SEQ":
			v = seq
		}
		out[k] = v
	}
	return out
}

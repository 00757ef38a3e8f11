package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

func pr(n int) prstatus.PRRef { return prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: n} }

// statusJSON runs `prmonitor status --json` on dir and decodes the report.
func statusJSON(t *testing.T, dir string) statusReport {
	t.Helper()
	res := runCLI(t, nil, "status", "--json", "--state-dir", dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	require.Empty(t, res.stderr)
	var r statusReport
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &r), res.stdout)
	return r
}

// Each saved monitor is told in words: where it is, what it waits for and since when, the
// question or task in play, and its last event.
func TestStatusTellsWhatEachSavedMonitorWaitsFor(t *testing.T) {
	tests := []struct {
		where        string
		phase        string
		state        string
		waitingFor   string
		question     bool
		task         string
		ended        bool
		lastEvent    string
		waitingSince time.Duration // before testNow
	}{
		{where: atWatchingCI, phase: phaseWatching, state: "watching", waitingFor: "CI to finish",
			lastEvent: "checked GitHub: checks running → watching", waitingSince: 119 * time.Minute},
		{where: atQuestion, phase: phaseAsking, state: "merge conflict: asking you", waitingFor: "your answer: ", question: true,
			lastEvent: "checked GitHub: merge conflict → merge conflict: asking you", waitingSince: 117 * time.Minute},
		{where: atSnoozed, phase: phaseAsking, state: "merge conflict: asking you", waitingFor: "your answer (snoozed until ", question: true,
			lastEvent: "you chose ask me again in 1 hour", waitingSince: 117 * time.Minute},
		{where: atTask, phase: phaseAgent, state: "merge conflict: agent at work", waitingFor: "the agent to finish the rebase", task: "rebase",
			lastEvent: "you chose rebase", waitingSince: 116 * time.Minute},
		{where: atEnded, phase: phaseEnded, state: "ended", waitingFor: "nothing: stopped", ended: true,
			lastEvent: "you chose stop", waitingSince: 116 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			d := newStateDir(t)
			d.add(pr(7), tt.where)

			r := statusJSON(t, d.dir)
			require.Len(t, r.Monitors, 1)
			m := r.Monitors[0]
			assert.Equal(t, "acme/widgets#7", m.PR)
			assert.Equal(t, tt.phase, m.Phase)
			assert.Equal(t, tt.state, m.State)
			assert.Contains(t, m.WaitingFor, tt.waitingFor)
			assert.Equal(t, tt.question, m.Question != nil, "question")
			if tt.task != "" {
				require.NotNil(t, m.Task)
				assert.Equal(t, tt.task, m.Task.Name)
			} else {
				assert.Nil(t, m.Task)
			}
			assert.Equal(t, tt.ended, m.Ended)
			require.NotNil(t, m.LastEvent)
			assert.Contains(t, m.LastEvent.Summary, tt.lastEvent)
			assert.Equal(t, testNow.Add(-tt.waitingSince), m.WaitingSince)
			assert.Equal(t, "Add retries", m.Title, "GitHub text reaches the terminal without control characters")

			res := runCLI(t, nil, "status", "--state-dir", d.dir)
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Empty(t, res.stderr)
			assert.Contains(t, res.stdout, "acme/widgets#7")
			assert.Contains(t, res.stdout, tt.state)
			assert.NotContains(t, res.stdout, "\x1b", "no escape sequence")
			for _, code := range []string{string(m.Node), "awaiting_user", "executing_task", "ci_pending", " at polling", "user_chose"} {
				if code != string(statemachine.NodeStopped) && code != string(statemachine.NodePolling) {
					assert.NotContains(t, res.stdout, code, "internal codes stay out of the table")
				}
			}
		})
	}
}

// Several monitors come in the order a person should look at them, and the budget each watcher
// spends is shown from spend.json.
func TestStatusListsQuestionsFirstAndShowsTheBudget(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(1), atEnded)
	d.add(pr(2), atWatchingCI)
	d.add(pr(3), atTask)
	d.add(pr(4), atQuestion)
	require.NoError(t, d.st.Spend("https://api.github.com/").SaveSpend(store.Spend{
		Budget: 0.25, WindowStart: testNow.Add(-20 * time.Minute), Points: 120, Requests: 118,
		Limit: 5000, Remaining: 4700, ResetAt: testNow.Add(40 * time.Minute), Cycle: 12 * time.Second, PRs: 3,
		UpdatedAt: testNow.Add(-5 * time.Second),
	}))

	r := statusJSON(t, d.dir)
	var order []string
	for _, m := range r.Monitors {
		order = append(order, m.PR)
	}
	assert.Equal(t, []string{"acme/widgets#4", "acme/widgets#3", "acme/widgets#2", "acme/widgets#1"}, order)
	require.Len(t, r.Budgets, 1)
	assert.Equal(t, 120, r.Budgets[0].Points)
	assert.InDelta(t, 12, r.Budgets[0].CycleSeconds, 0.001)

	res := runCLI(t, nil, "status", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "api.github.com: 120 of 1250 points this hour (25 % of 5000), 4700 left until 12:40:00; 3 PRs, each looked at every 12s")
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	assert.Equal(t, fmt.Sprintf("A server is running (pid %d) with 3 monitors.", os.Getpid()), lines[0], "the test holds three monitors; #1 ended")
	lines = lines[2:]
	assert.True(t, strings.HasPrefix(lines[0], "PR "), "a heading: %q", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "acme/widgets#4 "), "the question first: %q", lines[1])
	col := strings.Index(lines[0], "STATE")
	for _, l := range lines[1:5] {
		assert.NotEqual(t, ' ', rune(l[col]), "aligned: %q", l)
		assert.Equal(t, "  ", l[col-2:col], "aligned: %q", l)
	}
}

// A record this build cannot read is reported, never a crash, and left where it is; the other
// monitors are still listed.
func TestStatusReportsACorruptRecordAndGoesOn(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	bad := "acme.widgets.9-0badf00d.json"
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, bad), []byte("{\"schema\":1,"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "spend.json"), []byte("not json"), 0o600))

	r := statusJSON(t, d.dir)
	require.Len(t, r.Monitors, 1)
	var files []string
	for _, u := range r.Unreadable {
		files = append(files, u.File)
		assert.NotEmpty(t, u.Problem)
	}
	assert.Equal(t, []string{bad, "spend.json"}, files)

	res := runCLI(t, nil, "status", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "acme/widgets#7")
	assert.Contains(t, res.stdout, bad+": not a valid record")
	_, err := os.Stat(filepath.Join(d.dir, bad))
	assert.NoError(t, err, "the corrupt record is left where it is")
}

func TestStatusOfAnEmptyOrMissingDirectory(t *testing.T) {
	empty := t.TempDir()
	missing := filepath.Join(t.TempDir(), "never-created")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"empty", []string{"--state-dir", empty}, exitOK, "No monitors saved in " + empty + ".\n", ""},
		{"an unreadable directory", []string{"--state-dir", os.DevNull}, exitFailure, "", "prmonitor status: store: read " + os.DevNull},
		{"empty as JSON", []string{"--json", "--state-dir", empty}, exitOK, `"monitors": []`, ""},
		{"missing", []string{"--state-dir", missing}, exitOK, "Nothing is saved yet: " + missing + " does not exist (a server creates it when an agent starts its first monitor).\n", ""},
		{"missing as JSON", []string{"--json", "--state-dir", missing}, exitOK, `"monitors": []`, ""},
		{"a fresh machine", []string{}, exitOK, "Nothing is saved yet: /nonexistent-home/.local/state/prmonitor does not exist", ""},
		{"a fresh machine as JSON", []string{"--json"}, exitOK, `"state_dir": "/nonexistent-home/.local/state/prmonitor"`, ""},
		{"json and watch", []string{"--json", "--watch"}, exitUsage, "", "choose one of --json or --watch"},
		{"watch without a terminal", []string{"--watch", "--state-dir", empty}, exitUsage, "", "--watch needs a terminal"},
		{"an argument", []string{"acme/widgets#7"}, exitUsage, "", "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := &testEnv{vars: map[string]string{"HOME": "/nonexistent-home"}}
			res := runCLI(t, te, append([]string{"status"}, tt.args...)...)
			assert.Equal(t, tt.code, res.code, res.stderr)
			if tt.stdout == "" {
				assert.Empty(t, res.stdout, "stdout stays clean on an error")
			} else {
				assert.Contains(t, res.stdout, tt.stdout)
			}
			if tt.stderr == "" {
				assert.Empty(t, res.stderr)
			} else {
				assert.Contains(t, res.stderr, tt.stderr)
				assert.Equal(t, 1, strings.Count(res.stderr, "\n"), "one line: %q", res.stderr)
			}
		})
	}
	_, err := os.Stat(missing)
	assert.ErrorIs(t, err, os.ErrNotExist, "status never creates the directory")
}

// The table stays within the width it is given, and within its row limit.
func TestStatusTableIsBounded(t *testing.T) {
	d := newStateDir(t)
	for n := range 5 {
		d.add(pr(100+n), atQuestion)
	}
	snap, err := readStatus(store.NewReader(d.dir, statusEvents), testNow)
	require.NoError(t, err)
	for _, width := range []int{40, 80, 120, 200} {
		lines := statusTable(snap.report.Monitors, testNow, width, 3)
		assert.Len(t, lines, 4, "a heading and three rows")
		for _, l := range lines {
			assert.LessOrEqual(t, len([]rune(l)), width, "width %d: %q", width, l)
		}
	}
	var out strings.Builder
	writeStatus(&out, snap, 120, 3)
	assert.Contains(t, out.String(), "… and 2 more")
}

// Every node of the state machine's table is told in words: the flow in its attention's words
// (prstatus) and whose turn it is, with no code of the machine in them.
func TestEveryNodeIsToldInWords(t *testing.T) {
	var nodes []statemachine.Node
	for _, r := range statemachine.Table() {
		nodes = append(nodes, r.From...)
		nodes = append(nodes, r.To)
	}
	slices.Sort(nodes)
	code := regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)
	for _, n := range slices.Compact(nodes) {
		w := describeNode(n)
		assert.NotRegexp(t, code, w, "node %s", n)
		assert.False(t, strings.HasPrefix(w, "at "), "node %s is known: %q", n, w)
	}
	assert.Equal(t, "merge conflict: asking you", describeNode(statemachine.NodeConflictAsk))
	assert.Equal(t, "merge conflict: agent at work", describeNode(statemachine.NodeConflictRebasing))
	assert.Equal(t, "changes requested: GitHub work", describeNode(statemachine.NodeRefineRecovering))
	assert.Equal(t, "checks cancelled: asking you", describeNode(statemachine.NodeCICancelled))
	assert.Equal(t, "checks failed: waiting for running checks", describeNode(statemachine.NodeCIRerunDeferred))
	assert.Equal(t, "catching up: GitHub work", describeNode(statemachine.NodeCatchUpResolving))
	assert.Equal(t, "at a future node", describeNode("a_future_node"))
}

// The JSON schema is stable: a fixed state directory gives the committed document, and every
// field is documented in docs/status.md. Rewrite with PRMONITOR_UPDATE_GOLDEN=1 on purpose.
func TestStatusJSONIsStableAndDocumented(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(2), atWatchingCI)
	d.add(pr(4), atQuestion)
	d.add(pr(3), atTask)
	d.add(pr(1), atEnded)
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "acme.widgets.9-0badf00d.json"), []byte("{"), 0o600))
	require.NoError(t, d.st.Spend("https://api.github.com/").SaveSpend(store.Spend{
		Budget: 0.25, WindowStart: testNow.Add(-20 * time.Minute), Points: 120, Requests: 118,
		Limit: 5000, Remaining: 4700, ResetAt: testNow.Add(40 * time.Minute), Cycle: 12 * time.Second, PRs: 3,
		QuietUntil: testNow.Add(time.Hour), UpdatedAt: testNow.Add(-5 * time.Second),
	}))
	d.release(pr(2)) // its server exited: no process holds it
	res := runCLI(t, nil, "status", "--json", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	got := strings.ReplaceAll(res.stdout, d.dir, "STATE_DIR")
	// The monitors the test holds are held by this process: its pid is the server's.
	got = regexp.MustCompile(`("(?:server_)?pid": )`+strconv.Itoa(os.Getpid())+`\b`).ReplaceAllString(got, "${1}4242")
	matchGolden(t, "status.golden.json", got)

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "status.md"))
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	var undocumented []string
	for _, k := range jsonKeys(v) {
		if !strings.Contains(string(doc), "`"+k+"`") {
			undocumented = append(undocumented, k)
		}
	}
	assert.Empty(t, undocumented, "fields docs/status.md does not document")
}

// jsonKeys lists every object key in a decoded JSON value.
func jsonKeys(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = append(out, k)
			out = append(out, jsonKeys(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, jsonKeys(x)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Events are told in words, from the fields the server logs in the machine's own names: a step's
// input (the poll's attention, the agent's event, the user's choice as the question they answered
// labels it, the server's GitHub work and how it went) and where it led; any other event is the
// server's sentence, shown without control characters. No summary is read for a step.
func TestEventsAreToldInWords(t *testing.T) {
	step := func(e store.Event, action, node string) store.Event {
		e.Action, e.Node, e.Summary = action, node, "a summary status never reads"
		return e
	}
	tests := []struct {
		name string
		e    store.Event
		want string
	}{
		{"a poll", step(store.Event{Input: "poll", Attention: "ci_pending"}, "polling", "polling"), "checked GitHub: checks running → watching"},
		{"a poll that found what the machine asks about", step(store.Event{Input: "poll", Attention: "new_comments"}, "ask_user", "comments_multi"),
			"checked GitHub: new review comments → new review comments: asking you"},
		{"a choice, labelled by its question", step(store.Event{Input: "event", AgentEvent: "user_chose", Choice: "address",
			Answered: &store.QuestionRef{ID: "comment_item", Seq: 4}}, "execute", "comments_addressing"),
			"you chose address this comment → new review comments: agent at work"},
		{"the same choice in another question", step(store.Event{Input: "event", AgentEvent: "user_chose", Choice: "address",
			Answered: &store.QuestionRef{ID: "comment_single", Seq: 2}}, "execute", "comments_addressing"),
			"you chose do what the reviewer asks → new review comments: agent at work"},
		{"the agent's report", step(store.Event{Input: "event", AgentEvent: "comment_addressed"}, "server", "comments_posting_reply"),
			"the agent said that the comment was addressed → new review comments: GitHub work"},
		{"GitHub work done", step(store.Event{Input: "outcome", Outcome: &store.WorkOutcome{Work: "post_reply", OK: true}}, "polling", "polling"),
			"on GitHub: post a reply, done → watching"},
		{"GitHub work failed", step(store.Event{Input: "outcome", Outcome: &store.WorkOutcome{Work: "post_reply", Error: "502 Bad\x1b[2J Gateway"}},
			"ask_user", "comments_action_failed"), "on GitHub, could not post a reply: 502 Bad Gateway → new review comments: asking you"},
		{"a declined question", step(store.Event{Input: "decline"}, "polling", "polling"), "you declined the question → watching"},
		{"what a newer server logs", step(store.Event{Input: "something_new"}, "polling", "a_future_node"), "something_new → at a future node"},
		{"the server's GitHub work", store.Event{Kind: store.EventGitHub, Summary: "reply to the thread",
			Outcome: &store.WorkOutcome{Work: "resolve_thread", OK: true}}, "on GitHub: resolve a thread, done"},
		{"a note", store.Event{Kind: store.EventError, Summary: "poll failed: connection \x1b[2Jrefused"}, "poll failed: connection refused"},
		{"a lifecycle event", store.Event{Kind: store.EventLifecycle, Summary: "started"}, "started"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, describeEvent(typedEvent(tt.e)))
		})
	}
}

// A log an older server wrote, which told each step only in its summary (and its node in the
// data), still reads: its steps are told in words as the typed events are.
func TestOldLogsWithoutTypedFieldsStillRead(t *testing.T) {
	tests := []struct{ summary, want string }{
		{"poll: ci_pending → polling at polling", "checked GitHub: checks running → watching"},
		{"poll: new_comments → ask_user at comments_multi", "checked GitHub: new review comments → new review comments: asking you"},
		{"user_chose address_all → ask_user at comments_address_all", "you chose address all comments, one by one → new review comments: asking you"},
		{"comment_addressed → server at comments_posting_reply", "the agent said that the comment was addressed → new review comments: GitHub work"},
		{"push_completed → execute at refine_working", "the agent said that a push completed → changes requested: agent at work"},
		{"post_reply → polling at polling", "on GitHub: post a reply, done → watching"},
		{"post_reply failed: 502 Bad Gateway → ask_user at comments_action_failed", "on GitHub, could not post a reply: 502 Bad Gateway → new review comments: asking you"},
		{"decline → polling at polling", "you declined the question → watching"},
		{"something_new → polling at a_future_node", "something_new → at a future node"},
		{"poll failed: connection \x1b[2Jrefused", "poll failed: connection refused"},
		{"started", "started"},
	}
	for _, tt := range tests {
		t.Run(tt.summary, func(t *testing.T) {
			assert.Equal(t, tt.want, describeEvent(typedEvent(store.Event{Summary: tt.summary})))
		})
	}

	// The node is the data's when the data names one, and the monitor's wait is timed from it.
	e := typedEvent(store.Event{Kind: store.EventPoll, Summary: "poll: ci_pending → polling at polling",
		Data: map[string]any{"node": "polling", "fired": []any{"nothing_new"}}})
	assert.Equal(t, store.Event{Kind: store.EventPoll, Summary: "poll: ci_pending → polling at polling",
		Data: map[string]any{"node": "polling", "fired": []any{"nothing_new"}}, Input: "poll", Attention: "ci_pending",
		Action: "polling", Node: "polling"}, e)
}

// The watcher's line counts its pull requests in the singular when there is one.
func TestTheBudgetLineCountsPullRequestsInTheirNumber(t *testing.T) {
	for _, tt := range []struct {
		prs  int
		want string
	}{{1, "; 1 PR, each looked at every 12s"}, {3, "; 3 PRs, each looked at every 12s"}} {
		line := budgetLine(statusBudget{API: "https://api.github.com", Budget: 0.25, Limit: 5000, CycleSeconds: 12, PRs: tt.prs, UpdatedAt: testNow}, testNow)
		assert.Contains(t, line, tt.want)
	}
}

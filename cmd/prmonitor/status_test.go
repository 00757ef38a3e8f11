package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
		{where: atQuestion, phase: phaseAsking, state: "conflict: asking to rebase", waitingFor: "your answer: ", question: true,
			lastEvent: "checked GitHub: merge conflict → conflict: asking to rebase", waitingSince: 117 * time.Minute},
		{where: atSnoozed, phase: phaseAsking, state: "conflict: asking to rebase", waitingFor: "your answer (snoozed until ", question: true,
			lastEvent: "you chose ask me again in 1 hour", waitingSince: 117 * time.Minute},
		{where: atTask, phase: phaseAgent, state: "conflict: agent rebasing", waitingFor: "the agent to rebase the branch", task: "rebase",
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
		{"empty as JSON", []string{"--json", "--state-dir", empty}, exitOK, `"monitors": []`, ""},
		{"missing", []string{"--state-dir", missing}, exitFailure, "", "prmonitor status: no state directory at " + missing + ": no monitor was ever saved there"},
		{"missing as JSON", []string{"--json", "--state-dir", missing}, exitFailure, "", "no state directory at " + missing},
		{"the default directory", []string{}, exitFailure, "", "no state directory at /nonexistent-home/.local/state/prmonitor"},
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
	writeStatus(&out, snap.report, 120, 3)
	assert.Contains(t, out.String(), "… and 2 more")
}

// Every node of the state machine's table is told in words.
func TestEveryNodeHasWords(t *testing.T) {
	var nodes []statemachine.Node
	for _, r := range statemachine.Table() {
		nodes = append(nodes, r.From...)
		nodes = append(nodes, r.To)
	}
	slices.Sort(nodes)
	for _, n := range slices.Compact(nodes) {
		_, ok := nodeWords[n]
		assert.True(t, ok, "node %s has no words", n)
	}
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
	res := runCLI(t, nil, "status", "--json", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	got := strings.ReplaceAll(res.stdout, d.dir, "STATE_DIR")

	golden := filepath.Join("testdata", "status.golden.json")
	if os.Getenv("PRMONITOR_UPDATE_GOLDEN") == "1" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with PRMONITOR_UPDATE_GOLDEN=1 to write it")
	assert.JSONEq(t, string(want), got)

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "status.md"))
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	for _, k := range jsonKeys(v) {
		assert.Contains(t, string(doc), "`"+k+"`", "docs/status.md documents %q", k)
	}
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

// Events are told in words; a summary the server wrote in prose, or in a form this build does not
// know, is shown as it is, without control characters.
func TestEventsAreToldInWords(t *testing.T) {
	tests := []struct{ summary, want string }{
		{"poll: ci_pending → polling at polling", "checked GitHub: checks running → watching"},
		{"poll: new_comments → ask_user at comments_multi", "checked GitHub: new review comments → comments: asking how to proceed"},
		{"user_chose address_all → ask_user at comments_address_all", "you chose address all comments, one by one → comments: asking about the next thread"},
		{"comment_addressed → server at comments_posting_reply", "agent addressed a comment → comments: posting a reply"},
		{"post_reply → polling at polling", "on GitHub: post a reply, done → watching"},
		{"post_reply failed: 502 Bad Gateway → ask_user at comments_action_failed", "on GitHub, could not post a reply: 502 Bad Gateway → comments: asking after a failure"},
		{"decline → polling at polling", "you declined the question → watching"},
		{"something_new → polling at a_future_node", "something_new → at a future node"},
		{"poll failed: connection \x1b[2Jrefused", "poll failed: connection refused"},
		{"started", "started"},
	}
	for _, tt := range tests {
		t.Run(tt.summary, func(t *testing.T) {
			assert.Equal(t, tt.want, describeEvent(tt.summary))
		})
	}
}

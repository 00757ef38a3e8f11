package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// statusOutput is the part of `prmonitor status --json` (docs/status.md) these tests read.
type statusOutput struct {
	Schema   int `json:"schema"`
	Monitors []struct {
		PR         string `json:"pr"`
		Phase      string `json:"phase"`
		Node       string `json:"node"`
		State      string `json:"state"`
		WaitingFor string `json:"waiting_for"`
		Question   *struct {
			ID string `json:"id"`
		} `json:"question"`
		Task *struct {
			Name string `json:"name"`
		} `json:"task"`
		LastEvent *struct {
			Summary string `json:"summary"`
		} `json:"last_event"`
		ServerPID int `json:"server_pid"`
	} `json:"monitors"`
	Unreadable []any `json:"unreadable"`
	Servers    []struct {
		PID       int       `json:"pid"`
		Monitors  int       `json:"monitors"`
		StartedAt time.Time `json:"started_at"`
		Version   string    `json:"version"`
		API       string    `json:"api"`
	} `json:"servers"`
}

// status runs the built binary's `status --json` on the world's state directory, beside the
// server that holds its monitors.
func (w *world) status() statusOutput {
	w.t.Helper()
	cmd := exec.Command(binary, "status", "--json", "--state-dir", w.stateDir)
	cmd.Env = []string{"HOME=" + w.stateDir, "PATH=/usr/bin:/bin"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(w.t, cmd.Run(), "stderr: %s", stderr.String())
	require.Empty(w.t, stderr.String())
	var out statusOutput
	require.NoError(w.t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
	return out
}

// dirState is every file of the state directory with its size and modification time.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		if e.Name() == "spend.json" || e.Name() == "watched.json" {
			continue // the running server's watcher saves these on its own clock
		}
		info, err := e.Info()
		require.NoError(t, err)
		out[e.Name()] = fmt.Sprintf("%d %v", info.Size(), info.ModTime().UnixNano())
	}
	return out
}

// While a server runs and holds its monitor, `prmonitor status` beside it shows what the monitor
// waits for, as the agent was told: first the user's answer to the question, then the agent's
// task. It writes nothing and the server goes on undisturbed.
func TestStatusBesideARunningServerShowsTheQuestionThenTheTask(t *testing.T) {
	w := newWorld(t, profiles[2]) // no elicitation: the question reaches the agent as ask_user
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(bot, "", githubfake.NewThread{Path: "retry.go", Line: 10, Body: "Consider jitter."}),
		githubfake.CommentReview(bob, "", githubfake.NewThread{Path: "retry.go", Line: 30, Body: "Name this constant."}))
	w.launch()
	w.start()
	act := w.next("ready", "", nil)
	for i := 0; act.Action == "polling" && i < 20; i++ {
		w.fake.Advance(time.Minute)
		act = w.next("ready", "", nil)
	}
	require.Equal(t, "ask_user", act.Action)

	before := dirState(t, w.stateDir)
	st := w.status()
	assert.Equal(t, before, dirState(t, w.stateDir), "status wrote nothing")
	assert.Equal(t, 1, st.Schema)
	assert.Empty(t, st.Unreadable)
	require.Len(t, st.Monitors, 1)
	m := st.Monitors[0]
	assert.Equal(t, "acme/widgets#7", m.PR)
	assert.Equal(t, "asking", m.Phase)
	assert.Equal(t, w.cmd.Process.Pid, m.ServerPID, "the server that holds the monitor is seen running")
	require.NotNil(t, m.Question)
	assert.Equal(t, string(act.Question.ID), m.Question.ID)
	assert.Contains(t, m.WaitingFor, "your answer")
	require.NotNil(t, m.LastEvent)
	assert.NotContains(t, m.LastEvent.Summary, " at ", "the last event is told in words, not in the machine's names")

	// Address them all: then address the first one.
	for _, choice := range []string{"address_all", "address"} {
		require.Equal(t, "ask_user", act.Action)
		raw, errText := w.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose",
			"choice": choice, "question_seq": act.Question.Seq})
		require.Empty(t, errText)
		require.NoError(t, json.Unmarshal(raw, &act))
	}
	require.Equal(t, "execute", act.Action)
	m = w.status().Monitors[0]
	assert.Equal(t, "agent", m.Phase)
	require.NotNil(t, m.Task)
	assert.Equal(t, act.Task, m.Task.Name)
	require.NotNil(t, m.LastEvent)
	assert.Contains(t, m.LastEvent.Summary, "you chose", "the answer is the last event, in words")
}

// Once the server has exited, `status` says that no server runs the monitor and that it resumes
// where it was, rather than showing it busy.
func TestStatusAfterTheServerExitedSaysNoServerRunsTheMonitor(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	w.launch()
	w.start()
	require.Equal(t, w.cmd.Process.Pid, w.status().Monitors[0].ServerPID)
	w.close()

	m := w.status().Monitors[0]
	assert.Zero(t, m.ServerPID)
	cmd := exec.Command(binary, "status", "--state-dir", w.stateDir)
	cmd.Env = []string{"HOME=" + w.stateDir, "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "No server is running any of these monitors. The monitor resumes where it was when an agent calls pr_monitor_start")
	assert.Contains(t, string(out), "acme/widgets#7  ")
	assert.Contains(t, string(out), "no server · ")
}

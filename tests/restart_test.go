package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// kill ends the server process the hard way (SIGKILL: no cleanup, no last save) and starts a new
// one on the same state directory.
func (w *world) killAndRestart() {
	w.t.Helper()
	require.NoError(w.t, w.cmd.Process.Kill())
	_ = w.session.Close()
	w.session = nil
	w.launch()
}

func samePending(t *testing.T, before contract.ActionOutput, after *contract.ActionOutput) {
	t.Helper()
	switch before.Action {
	case "ask_user":
		require.NotNil(t, after, "the open question survives the restart")
		require.Equal(t, before.Question.ID, after.Question.ID)
		require.Equal(t, before.Question.Seq, after.Question.Seq)
		require.Equal(t, before.Question.Choices, after.Question.Choices)
	case "execute":
		require.NotNil(t, after, "the task in progress survives the restart")
		require.Equal(t, before.Task, after.Task)
		require.Equal(t, before.ExpectedEvents, after.ExpectedEvents)
		if before.Context != nil && before.Context.Thread != nil {
			require.Equal(t, before.Context.Thread.ID, after.Context.Thread.ID)
		}
	}
}

// TestKilledAtEveryStepResumesExactly plays the refine scenario (a review with three threads, one
// pushback) with a client that cannot elicit, so every question and task reaches the agent, and
// kills the server after every step. Each time the agent starts again, it must be handed exactly
// what it had; the scenario must end merged with no reply posted twice.
func TestKilledAtEveryStepResumesExactly(t *testing.T) {
	sc := scenarios()[1]
	w := newWorld(t, profiles[2])
	w.user, w.model = sc.answer, model
	w.apply(sc.setup...)
	w.fake.Advance(10 * time.Minute)
	w.apply(sc.later...)
	w.launch()
	w.start()
	act := w.next("ready", "", nil)
	step, kills := 0, 0
	var story []string
	for i := 0; i < 80 && act.Action != "merged"; i++ {
		if act.Action != "polling" {
			story = append(story, describe(act))
		}
		w.killAndRestart()
		kills++
		out := w.start()
		require.True(t, out.Resumed, "step %d: the monitor resumed", i)
		samePending(t, act, out.Pending)
		switch act.Action {
		case "polling":
			require.Less(t, step, len(sc.timeline))
			w.fake.Advance(10 * time.Minute)
			w.apply(sc.timeline[step]...)
			step++
			act = w.next("ready", "", nil)
		case "ask_user":
			q := question{ID: string(act.Question.ID)}
			v := sc.answer(q)
			w.answered(v)
			act = w.next("user_chose", v, nil)
		case "execute":
			do := defaultAgent
			if f, ok := sc.agent[act.Task]; ok {
				do = f
			}
			ev, data := do(w, act)
			act = w.next(ev, "", data)
		}
	}
	require.Equal(t, "merged", act.Action)
	require.GreaterOrEqual(t, kills, 6, "killed after every step of the story")
	require.Equal(t, []string{"execute refine", "execute address_comment", "execute address_comment", "execute address_comment",
		"ask_user ready_to_merge"}, story, "exactly the story without a restart: nothing asked or handed out twice")
	requireOneReplyPerThread(t, w)
	require.Empty(t, w.fake.Forbidden())
	requireNoToken(t, w)
}

// TestKilledWhilePostingAReplyPostsItOnce kills the server after GitHub accepted a reply but before
// the server learnt it; after the restart the reply is not posted again.
func TestKilledWhilePostingAReplyPostsItOnce(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(bob, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "Rename this."}))
	w.launch()
	w.start()
	act := w.next("ready", "", nil)
	require.Equal(t, "explain_comment", act.Task)
	act = w.next("task_complete", "", map[string]any{"recommendation": "rename"})
	require.Equal(t, "ask_user", act.Action)
	act = w.next("user_chose", "apply_recommendation", nil)
	require.Equal(t, "apply_recommendation", act.Task)

	// The reply lands on GitHub, then its answer hangs: the server dies before hearing back.
	w.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), Times: 1, After: true, Delay: 5 * time.Second})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = w.session.CallTool(w.t.Context(), callParams("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7",
			"event": "comment_addressed", "data": map[string]any{"reply_text": "Renamed."}}))
	}()
	landed := func() bool {
		n := 0
		_ = w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) { n = len(pr.Threads[0].Comments) })
		return n == 2
	}
	start := time.Now()
	require.Eventually(t, landed, 4*time.Second, 5*time.Millisecond, "the reply lands on GitHub")
	require.Less(t, time.Since(start), 4*time.Second)
	w.killAndRestart() // while GitHub's answer is still on its way
	<-done

	out := w.start()
	require.True(t, out.Resumed)
	act = w.next("ready", "", nil) // the pending reply is carried out again: found, not reposted
	assert.NotEqual(t, "execute", act.Action)
	assert.True(t, landed(), "posted once: the thread has the reviewer's comment and one reply")
	requireOneReplyPerThread(t, w)
	requireThreadsResolved(t, w, 1)
}

// TestTwoServersOnOneStateDirectory: the second server refuses the monitor the first runs, with a
// clear error naming the other process, and can run another.
func TestTwoServersOnOneStateDirectory(t *testing.T) {
	a := newWorld(t, profiles[1])
	a.apply(githubfake.OpenPR{Title: "x"})
	a.launch()
	a.start()

	b := &world{t: t, fake: a.fake, ref: a.ref, stateDir: a.stateDir, prof: profiles[1], user: a.user, model: a.model}
	b.launch()
	_, errText := b.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.NotEmpty(t, errText)
	assert.Contains(t, errText, "in use")
	assert.Contains(t, errText, "pid")
	assert.NotContains(t, errText, "\n")

	require.NoError(t, a.fake.Apply(githubfake.Ref(githubfakeRef("acme", "other", 8)), githubfake.OpenPR{Title: "y"}))
	raw, errText := b.call("pr_monitor_start", map[string]any{"pr": "acme/other#8"})
	require.Empty(t, errText, "another pull request is fine")
	var out contract.StartOutput
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.Equal(t, "acme/other#8", out.MonitorID)
}

// TestCorruptStateIsSetAsideAndTheMonitorStartsFresh: a torn or garbage record never crashes the
// server; it is renamed aside with a warning and the monitor starts over.
func TestCorruptStateIsSetAsideAndTheMonitorStartsFresh(t *testing.T) {
	w := newWorld(t, profiles[1])
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	w.launch()
	w.start()
	records, err := filepath.Glob(filepath.Join(w.stateDir, "acme.widgets.*.json"))
	require.NoError(t, err)
	require.Len(t, records, 1)
	require.NoError(t, w.cmd.Process.Kill())
	_ = w.session.Close()
	w.session = nil
	require.NoError(t, os.WriteFile(records[0], []byte(`{"schema":1,"monitor_id":"acme/widgets#7","position":{"version":1,"node":"ready_a`), 0o600))

	w.launch()
	out := w.start()
	assert.False(t, out.Resumed, "nothing could be resumed")
	aside, err := filepath.Glob(records[0] + ".corrupt-*")
	require.NoError(t, err)
	assert.Len(t, aside, 1, "the corrupt record is kept aside, not deleted")
	assert.Contains(t, w.stderr.String(), "WARN")
	assert.Equal(t, "ask_user", w.next("ready", "", nil).Action, "and the monitor works")
}

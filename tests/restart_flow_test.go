package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// restart ends the server, the hard way (SIGKILL: no cleanup, no last save) or cleanly (the
// client closes stdin), and starts a new one on the same state directory.
func (w *world) restart(kill bool) {
	w.t.Helper()
	if kill {
		w.killAndRestart()
		return
	}
	require.NoError(w.t, w.session.Close())
	w.session = nil
	_ = w.cmd.Wait()
	w.launch()
}

// repliesPerThread counts, per thread (by path), the comments that carry prmonitor's marker.
func repliesPerThread(t *testing.T, w *world) map[string]int {
	t.Helper()
	out := map[string]int{}
	require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
		for _, th := range pr.Threads {
			out[th.Path] += 0
			for _, c := range th.Comments {
				if _, ok := prstatus.ParseMarker(c.Body); ok {
					out[th.Path]++
				}
			}
		}
	}))
	return out
}

// addressAllThreads is one bot thread and n-1 human threads on a green PR.
func addressAllThreads(n int) []githubfake.Event {
	evs := []githubfake.Event{githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(bot, "", githubfake.NewThread{Path: "bot.go", Line: 1, Body: "Consider jitter."})}
	humans := []githubfake.Actor{bob, carol}
	for i := 1; i < n; i++ {
		evs = append(evs, githubfake.CommentReview(humans[i-1], "", githubfake.NewThread{Path: fmt.Sprintf("human%d.go", i), Line: 2, Body: "Name this constant."}))
	}
	return evs
}

// TestAddressAllRestartedAfterEveryStepRepliesOncePerThread is issue 9's first defect: "address
// all" over two and three threads, with the server restarted (killed, or closed cleanly) after
// every step the agent takes. After each restart the agent starts again and carries on with what
// it had; the flow must finish exactly as without a restart: one reply per thread, ever, and no
// task for a thread that is already answered.
func TestAddressAllRestartedAfterEveryStepRepliesOncePerThread(t *testing.T) {
	for _, n := range []int{2, 3} {
		for _, kill := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d threads, kill=%v", n, kill), func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, profiles[2])
				w.apply(addressAllThreads(n)...)
				w.launch()
				w.start()
				act := w.next("ready", "", nil)
				requireAskID(t, act, "comments_multi")
				answered := map[string]int{}
				timeline := [][]githubfake.Event{{githubfake.Approve(githubfake.User("erin"), "LGTM")}}
				var trace []string
				for i := 0; i < 60 && act.Action != "merged"; i++ {
					trace = append(trace, describe(act))
					w.restart(kill)
					out := w.start()
					require.True(t, out.Resumed, "step %d: the monitor resumed", i)
					samePending(t, act, out.Pending)
					switch act.Action {
					case "polling":
						require.NotEmpty(t, timeline, "stuck:\n%s", strings.Join(trace, "\n"))
						w.fake.Advance(10 * time.Minute)
						w.apply(timeline[0]...)
						timeline = timeline[1:]
						act = w.next("ready", "", nil)
					case "ask_user":
						v := map[string]string{"comments_multi": "address_all", "comment_item": "address", "ready_to_merge": "merge"}[string(act.Question.ID)]
						require.NotEmpty(t, v, "unexpected question %s:\n%s", act.Question.ID, strings.Join(trace, "\n"))
						w.answered(v)
						act = w.next("user_chose", v, nil)
					case "execute":
						require.Equal(t, "address_comment", act.Task, "only the address-all tasks:\n%s", strings.Join(trace, "\n"))
						path := act.Context.Thread.Path
						answered[path]++
						require.Equal(t, 1, answered[path], "%s handed out twice:\n%s", path, strings.Join(trace, "\n"))
						ev, data := defaultAgent(w, act)
						act = w.next(ev, "", data)
					}
				}
				require.Equal(t, "merged", act.Action, "trace:\n%s", strings.Join(trace, "\n"))
				require.Len(t, answered, n, "every thread was addressed")
				for path, c := range repliesPerThread(t, w) {
					require.Equal(t, 1, c, "replies on %s:\n%s", path, strings.Join(trace, "\n"))
				}
				requireThreadsResolved(t, w, n)
			})
		}
	}
}

func requireAskID(t *testing.T, act contract.ActionOutput, id string) {
	t.Helper()
	require.Equal(t, "ask_user", act.Action, "want question %s, got %+v", id, act)
	require.Equal(t, id, string(act.Question.ID))
}

// TestATaskWhoseCallWasLostIsHandedBackAfterARestart is issue 9's second defect: the server dies
// inside the call that answered "address" (the task was entered and saved, its answer never
// reached the agent). After the restart the agent gets that task back, whether it repeats the
// call that entered it (same question seq, same choice) or sends ready; and the flow then
// finishes with every thread answered once.
func TestATaskWhoseCallWasLostIsHandedBackAfterARestart(t *testing.T) {
	for _, how := range []string{"repeat the answer", "ready"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, profiles[2])
			w.apply(addressAllThreads(2)...)
			w.launch()
			w.start()
			requireAskID(t, w.next("ready", "", nil), "comments_multi")
			item := w.next("user_chose", "address_all", nil)
			requireAskID(t, item, "comment_item")
			lost := w.next("user_chose", "address", nil) // its answer is lost with the server
			require.Equal(t, "address_comment", lost.Task)
			w.restart(true)
			out := w.start()
			require.True(t, out.Resumed)

			var act contract.ActionOutput
			if how == "ready" {
				act = w.next("ready", "", nil)
			} else {
				raw, errText := w.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose",
					"choice": "address", "question_seq": item.Question.Seq})
				require.Empty(t, errText, "repeating the call that entered the task returns it")
				require.NoError(t, json.Unmarshal(raw, &act))
			}
			require.Equal(t, "execute", act.Action, "the task comes back: %+v", act)
			require.Equal(t, lost.Task, act.Task)
			require.Equal(t, lost.Context.Thread.ID, act.Context.Thread.ID)

			for i := 0; i < 10 && act.Action != "polling"; i++ {
				switch act.Action {
				case "execute":
					ev, data := defaultAgent(w, act)
					act = w.next(ev, "", data)
				case "ask_user":
					requireAskID(t, act, "comment_item")
					act = w.next("user_chose", "address", nil)
				}
			}
			require.Equal(t, "polling", act.Action)
			for path, c := range repliesPerThread(t, w) {
				require.Equal(t, 1, c, "replies on %s", path)
			}
			requireThreadsResolved(t, w, 2)
		})
	}
}

// TestSavedMonitorsAreFoundByIDAfterARestart is issue 9's third defect: after a restart every
// tool finds a saved monitor by its id, without pr_monitor_start first.
func TestSavedMonitorsAreFoundByIDAfterARestart(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.MergeConflict{})
	w.launch()
	w.start()
	asked := w.next("ready", "", nil)
	requireAskID(t, asked, "merge_conflict")

	status := func(args map[string]any) contract.StatusOutput {
		t.Helper()
		raw, errText := w.call("pr_monitor_status", args)
		require.Empty(t, errText)
		var out contract.StatusOutput
		require.NoError(t, json.Unmarshal(raw, &out))
		return out
	}
	w.restart(true)
	for _, args := range []map[string]any{{}, {"monitor_id": "acme/widgets#7"}, {"monitor_id": "Acme/Widgets#7"}} {
		st := status(args)
		require.Len(t, st.Monitors, 1, "status %v lists the saved monitor", args)
		got := st.Monitors[0]
		require.Equal(t, "acme/widgets#7", got.MonitorID)
		require.Equal(t, "awaiting_user", got.State)
		require.NotNil(t, got.Pending)
		require.Equal(t, asked.Question.Seq, got.Pending.Question.Seq)
	}
	_, errText := w.call("pr_monitor_status", map[string]any{"monitor_id": "acme/other#1"})
	require.Contains(t, errText, "unknown monitor")

	act := w.next("ready", "", nil) // next_step by id, no pr_monitor_start
	requireAskID(t, act, "merge_conflict")
	require.Equal(t, asked.Question.Seq, act.Question.Seq)
	require.Equal(t, "rebase", w.next("user_chose", "rebase", nil).Task)

	w.restart(false)
	raw, errText := w.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#7"})
	require.Empty(t, errText, "stop by id")
	var stop contract.StopOutput
	require.NoError(t, json.Unmarshal(raw, &stop))
	require.Equal(t, []string{"acme/widgets#7"}, stop.Stopped)
	require.Equal(t, "stop", w.next("ready", "", nil).Action, "stopped for good")

	w.restart(true)
	st := status(map[string]any{"monitor_id": "acme/widgets#7"})
	require.Equal(t, "stopped", st.Monitors[0].State, "a stopped monitor is still found, stopped")
	require.Empty(t, status(map[string]any{}).Monitors, "stopped monitors are not listed among the running ones")
	require.Equal(t, "stop", w.next("ready", "", nil).Action)
	require.False(t, w.start().Resumed, "a start after a stop begins afresh")
}

// TestStopAllStopsSavedMonitorsAfterARestart: pr_monitor_stop all covers the monitors an earlier
// server saved.
func TestStopAllStopsSavedMonitorsAfterARestart(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.MergeConflict{})
	w.launch()
	w.start()
	w.restart(true)
	raw, errText := w.call("pr_monitor_stop", map[string]any{"monitor_id": "all"})
	require.Empty(t, errText)
	var stop contract.StopOutput
	require.NoError(t, json.Unmarshal(raw, &stop))
	require.Equal(t, []string{"acme/widgets#7"}, stop.Stopped)
}

package mcpserver

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/quiet"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// shiftedClock is the wall clock moved to a chosen time of day: it runs at the real pace (the
// server's waits are real), starting at at.
type shiftedClock struct{ offset atomic.Int64 }

func newShiftedClock(at time.Time) *shiftedClock {
	c := &shiftedClock{}
	c.set(at)
	return c
}

func (c *shiftedClock) set(at time.Time)        { c.offset.Store(int64(time.Until(at))) }
func (c *shiftedClock) advance(d time.Duration) { c.offset.Add(int64(d)) }
func (c *shiftedClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }

// nightly is 19:00-08:00 UTC.
func nightly(t *testing.T) quiet.Hours {
	t.Helper()
	h, err := quiet.New("19:00-08:00", false, time.UTC)
	require.NoError(t, err)
	return h
}

// thursdayNight is 22:00 UTC on a Thursday; the quiet hours end at 08:00 the next morning.
var thursdayNight = time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)

func (h *harness) elicitedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.elicited)
}

func (h *harness) status() contract.StatusOutput {
	h.t.Helper()
	raw, errText := h.call("pr_monitor_status", map[string]any{"monitor_id": h.ref.String()})
	require.Empty(h.t, errText)
	var out contract.StatusOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	return out
}

func TestDuringQuietHoursNoQuestionIsElicitedAndTheCallSaysQuietUntil(t *testing.T) {
	clock := newShiftedClock(thursdayNight)
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: choose(pickValue("rebase")), cfg: func(c *Config) {
		c.Quiet, c.Now, c.MaxBlock = nightly(t), clock.now, 300*time.Millisecond
	}})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()

	for range 2 {
		act := h.next("ready", "", nil)
		require.Equal(t, "polling", act.Action, "%+v", act)
		assert.Equal(t, "awaiting_user", act.State)
		assert.Nil(t, act.Question, "the question is not shown to the agent either")
		assert.Equal(t, "2026-11-27T08:00:00Z", act.QuietUntil)
		assert.Contains(t, act.Message, "quiet until Fri 27 Nov 08:00 UTC")
		assert.Contains(t, act.Message, "event=ready")
	}
	assert.Zero(t, h.elicitedCount(), "no elicitation during quiet hours")
	st := h.status()
	assert.Equal(t, "2026-11-27T08:00:00Z", st.QuietUntil, "pr_monitor_status says how long quiet lasts")
	raw, errText := h.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText)
	var all contract.StatusOutput
	require.NoError(t, json.Unmarshal(raw, &all))
	assert.Equal(t, "2026-11-27T08:00:00Z", all.QuietUntil, "the listing too")
}

func TestAQuestionHeldByQuietHoursIsAskedWhenTheyEnd(t *testing.T) {
	clock := newShiftedClock(time.Date(2026, 11, 27, 7, 59, 59, 700_000_000, time.UTC))
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: choose(pickValue("rebase")), cfg: func(c *Config) {
		c.Quiet, c.Now = nightly(t), clock.now
	}})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "execute", act.Action, "%+v", act)
	assert.Equal(t, "rebase", act.Task, "at 08:00 the user was asked and chose to rebase")
	assert.Equal(t, 1, h.elicitedCount())
}

func TestDuringQuietHoursAgentWorkGoesOn(t *testing.T) {
	clock := newShiftedClock(thursdayNight)
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: choose(pickValue("address")), cfg: func(c *Config) {
		c.Quiet, c.Now, c.MaxBlock = nightly(t), clock.now, 300*time.Millisecond
	}})
	h.apply(githubfake.OpenPR{Title: "x"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 12, Body: "use backoff"}))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "execute", act.Action, "a task for the agent needs no one: %+v", act)
	assert.Equal(t, "explain_comment", act.Task)
	act = h.next("task_complete", "", map[string]any{"recommendation": "Agree."})
	assert.Equal(t, "polling", act.Action, "the question that follows waits: %+v", act)
	assert.NotEmpty(t, act.QuietUntil)
	assert.Zero(t, h.elicitedCount())
}

func TestASnoozedQuestionIsNotAskedAgainEvenAfterARestart(t *testing.T) {
	clock := newShiftedClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	cfg := func(c *Config) { c.Now, c.MaxBlock = clock.now, 300*time.Millisecond }
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: choose(pickValue("snooze")), cfg: cfg})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()

	act := h.next("ready", "", nil)
	require.Equal(t, "polling", act.Action, "%+v", act)
	until, err := time.Parse(time.RFC3339, act.SnoozedUntil)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC), until, time.Minute, "an hour after the snooze")
	assert.Contains(t, act.Message, "snoozed until 11:00 UTC")
	require.Equal(t, 1, h.elicitedCount(), "the question was asked once; the user chose to snooze it")
	act = h.next("ready", "", nil)
	assert.Equal(t, "polling", act.Action)
	assert.NotEmpty(t, act.SnoozedUntil)
	assert.Equal(t, 1, h.elicitedCount(), "not asked again while snoozed")
	assert.NotEmpty(t, h.status().Monitors[0].SnoozedUntil, "pr_monitor_status shows the snooze")

	// A new server on the saved state (the fake GitHub as it was).
	rec, ok, err := h.state.Peek(h.ref.String())
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, rec.Position.Snooze, "the snooze is saved with the monitor")
	h2 := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: cfg, user: choose(pickValue("rebase"))})
	require.NoError(t, h2.state.Save(h2.ref.String(), rec))
	h2.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h2.start()
	act = h2.next("ready", "", nil)
	assert.Equal(t, "polling", act.Action, "the restarted server keeps the snooze: %+v", act)
	assert.NotEmpty(t, act.SnoozedUntil)
	assert.Zero(t, h2.elicitedCount())

	clock.advance(time.Hour)
	act = h2.next("ready", "", nil)
	require.Equal(t, "execute", act.Action, "an hour later the question is asked again: %+v", act)
	assert.Equal(t, "rebase", act.Task)
	assert.Equal(t, 1, h2.elicitedCount())
}

func TestAMonitorResumedDuringQuietHoursDoesNotShowItsQuestion(t *testing.T) {
	clock := newShiftedClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.Quiet, c.Now, c.MaxBlock = nightly(t), clock.now, 300*time.Millisecond
	}})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	require.Equal(t, "ask_user", h.next("ready", "", nil).Action, "by day the agent (no elicitation) is given the question")

	clock.set(thursdayNight)
	out := h.start()
	require.NotNil(t, out.Pending)
	assert.Equal(t, "polling", out.Pending.Action)
	assert.Nil(t, out.Pending.Question)
	assert.Equal(t, "2026-11-27T08:00:00Z", out.Pending.QuietUntil)
}

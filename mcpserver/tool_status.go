package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// ToolStatus names the read-only tool that shows where monitors stand.
const ToolStatus = "pr_monitor_status"

// listTitle bounds a title in a listing's line item (before it is fenced).
const listTitle = 80

// listQuestion bounds the question's text in a listing's line item.
const listQuestion = 160

func statusTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStatus)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStatus,
		mcp.WithDescription("Read-only: where monitors stand. With monitor_id, that monitor in detail (the last poll's facts, its state, "+
			"the open question or task, the last action); without, one line each, including those an earlier server saved. "+
			"No change, no GitHub request."),
		schemas,
		mcp.WithTitleAnnotation("Pull request monitor status"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	return tool, nil
}

func (s *Server) handleStatus(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in StatusInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	ws := s.watcherStatus()
	if in.MonitorID != "" && in.MonitorID != "all" {
		return s.oneStatus(in.MonitorID, ws), nil
	}
	var items []MonitorStatus
	for _, m := range s.monitorsByID() {
		items = append(items, s.liveStatus(m, false))
	}
	saved, err := s.cfg.State.List()
	if err != nil {
		return toolError("list the saved monitors: " + text.Error(err)), nil
	}
	for _, sv := range saved {
		if _, live := s.live(sv.Ref.String()); !live && !sv.Stopped {
			items = append(items, s.savedStatus(sv, false))
		}
	}
	out := listing(items, maxPayload-jsonSize(ws))
	out.Monitors = stackListed(out.Monitors, s.monitorsByID())
	out.Watcher = ws
	out.QuietUntil = s.stamp(s.quietUntil())
	return structured(out), nil
}

// watcherStatus is the watcher's pace and spend (nil before the watcher starts).
func (s *Server) watcherStatus() *WatcherStatus {
	w := s.runningWatcher()
	if w == nil {
		return nil
	}
	st := w.Stats()
	limit := st.Limit
	if limit == 0 {
		limit = watch.DefaultLimit
	}
	out := &WatcherStatus{PRs: st.PRs, Cycle: st.Cycle.Round(time.Second).String(), Budget: fmt.Sprintf("%g%%", st.Budget*100),
		PointsThisHour: st.PointsThisHour, BudgetPoints: int(st.Budget * float64(limit)), Remaining: st.Remaining, Limit: st.Limit}
	if st.Cycle < time.Second {
		out.Cycle = st.Cycle.Round(time.Millisecond).String()
	}
	if st.HeldUntil.After(s.cfg.Now()) {
		out.HeldUntil = st.HeldUntil.UTC().Format(time.RFC3339)
	}
	out.Writes = writesStatus(st.Writes, s.cfg.Now())
	return out
}

// writesStatus is the write pacing as status shows it: nil unless it holds a write back (one held
// past its call, or the next write still to wait for).
func writesStatus(wp ghclient.WritePacing, now time.Time) *WritesStatus {
	held, waits := wp.HeldUntil.After(now), wp.NextWrite.After(now)
	if !held && !waits {
		return nil
	}
	out := &WritesStatus{ContentLastMinute: wp.ContentLastMinute, ContentLastHour: wp.ContentLastHour}
	if held {
		out.HeldUntil, out.Reason = wp.HeldUntil.UTC().Format(time.RFC3339), wp.Reason
	}
	if waits {
		out.NextWrite = wp.NextWrite.UTC().Format(time.RFC3339)
	}
	return out
}

// oneStatus is one monitor in detail, live or as an earlier server saved it.
func (s *Server) oneStatus(id string, ws *WatcherStatus) *mcp.CallToolResult {
	if m, ok := s.live(id); ok {
		return structured(StatusOutput{Monitors: []MonitorStatus{s.liveStatus(m, true)}, QuietUntil: s.stamp(s.quietUntil()), Watcher: ws})
	}
	sv, ok, err := s.cfg.State.Peek(monitorID(id))
	if err != nil {
		return toolError(fmt.Sprintf("monitor %q: %s", id, text.Error(err)))
	}
	if !ok {
		return toolError(fmt.Sprintf("unknown monitor %q", id))
	}
	return structured(StatusOutput{Monitors: []MonitorStatus{s.savedStatus(sv, true)}, QuietUntil: s.stamp(s.quietUntil()), Watcher: ws})
}

// listing keeps the line items that fit in budget bytes, those waiting on someone first, and
// lists them by monitor id.
func listing(items []MonitorStatus, budget int) StatusOutput {
	slices.SortFunc(items, func(a, b MonitorStatus) int {
		return cmp.Or(cmp.Compare(waitsOnNobody(a), waitsOnNobody(b)), cmp.Compare(a.MonitorID, b.MonitorID))
	})
	out := StatusOutput{Monitors: []MonitorStatus{}}
	used := jsonSize(StatusOutput{Monitors: []MonitorStatus{}, Omitted: len(items)})
	for i, it := range items {
		n := jsonSize(it) + len(",")
		if used+n > budget {
			out.Omitted = len(items) - i
			break
		}
		used += n
		out.Monitors = append(out.Monitors, it)
	}
	slices.SortFunc(out.Monitors, func(a, b MonitorStatus) int { return cmp.Compare(a.MonitorID, b.MonitorID) })
	return out
}

// waitsOnNobody is 1 for a monitor that waits on nobody (it only polls), 0 for one with a question
// or a task pending.
func waitsOnNobody(st MonitorStatus) int {
	if st.Pending == nil {
		return 1
	}
	return 0
}

// savedStatus is a monitor an earlier process saved, as it stands in the state directory. It is
// read, not resumed: the next call that names it resumes it.
func (s *Server) savedStatus(sv store.Record, detail bool) MonitorStatus {
	id := monitorID(sv.Ref.String())
	pos := sv.Position
	m, err := statemachine.Restore(s.cfg.Machine, pos)
	if err == nil {
		pos = m.Position() // an older version's position, placed as this build places it
	}
	st := MonitorStatus{MonitorID: id, PR: sv.Ref.String(), Title: title(pos.Monitor.Title, detail), State: string(pos.Node.State()), Saved: true,
		Summary: sv.Ref.String() + " · saved by an earlier server; not polled since it started"}
	if detail {
		st.Detail = &MonitorDetail{Node: string(pos.Node), Flow: string(pos.Node.Flow())}
	}
	if err == nil {
		st.Pending = pending(id, m.Pending(), detail)
	}
	return s.withQuiet(st, pos)
}

// liveStatus is one of this process's monitors as it stands.
func (s *Server) liveStatus(m *monitor, detail bool) MonitorStatus {
	v := m.view()
	pos, f := v.pos, v.facts
	st := MonitorStatus{MonitorID: m.id, PR: m.ref.String(), Title: title(pos.Monitor.Title, detail), State: string(pos.Node.State()),
		Summary: summarize(m.ref.String(), f), Pending: pending(m.id, v.pending, detail)}
	if f != nil {
		st.Attention = string(f.Attention.Kind)
	}
	if detail {
		d := &MonitorDetail{Node: string(pos.Node), Flow: string(pos.Node.Flow())}
		st.Detail = d
		if v.lastAction != nil {
			last := boundOutput(*v.lastAction, statusBudget)
			d.LastAction = &last
		}
		if f != nil {
			d.AttentionReason = statemachine.WaitingFor(f)
			d.LastPoll = v.factsAt.UTC().Format(time.RFC3339)
			d.NeedsRefine = f.Refine.NeedsRefine
			d.CI = fmt.Sprintf("%d passed, %d failed, %d running, %d cancelled of %d", f.CI.Passed, f.CI.Failed, f.CI.Pending, f.CI.Cancelled, f.CI.Total)
			d.Reviews = &ReviewsSummary{Approvals: f.Reviews.Approvals, StaleApprovals: f.Reviews.StaleApprovals,
				ChangesRequestedBy: f.Reviews.ChangesRequestedBy, NotActedOn: notActedOn(f)}
		}
	}
	return s.withQuiet(st, pos)
}

// title is a monitor's title from GitHub, fenced; a listing's is shortened first.
func title(t string, detail bool) string {
	if !detail {
		t = text.ClipBytes(t, listTitle)
	}
	return statemachine.Untrusted(t).Fenced()
}

// pending is what a monitor waits on, nil when it only polls: bounded in detail, and in a
// listing cut to the action's kind, task and question (its id, seq and the start of its text).
func pending(id string, act statemachine.Action, detail bool) *ActionOutput {
	if act.Kind == statemachine.ActionPolling {
		return nil
	}
	if detail {
		out := actionOutput(id, bound(act, statusBudget))
		return &out
	}
	out := actionOutput(id, statemachine.Action{Kind: act.Kind, State: act.State, Task: act.Task, Question: act.Question, Server: act.Server})
	if q := act.Question; q != nil {
		out.Question = &elicitation.Question{ID: q.ID, Seq: q.Seq, Text: clipProse(q.Text, listQuestion)}
	}
	out.Message, out.Next = "", ""
	return &out
}

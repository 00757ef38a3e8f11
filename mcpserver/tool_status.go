package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

func (s *Server) handleStatus(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StatusInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	ws := s.watcherStatus()
	if in.MonitorID != "" && in.MonitorID != "all" {
		return s.oneStatus(in.MonitorID, ws), nil
	}
	var items []contract.MonitorStatus
	for _, m := range s.mons.ByID() {
		items = append(items, s.liveStatus(m, false))
	}
	saved, err := s.cfg.State.List()
	if err != nil {
		return contract.ToolError("list the saved monitors: " + text.Error(err)), nil
	}
	for _, sv := range saved {
		if _, live := s.mons.Live(sv.Ref.String()); !live && !sv.Stopped {
			items = append(items, s.savedStatus(sv, false))
		}
	}
	out := contract.StatusListing(items, contract.MaxPayload-contract.JSONSize(ws))
	out.Monitors = stackListed(out.Monitors, s.mons.ByID())
	out.Watcher = ws
	out.QuietUntil = s.stamp(s.quietUntil())
	return contract.Result(out), nil
}

// watcherStatus is the watcher's pace and spend (nil before the watcher starts).
func (s *Server) watcherStatus() *contract.WatcherStatus {
	w := s.runningWatcher()
	if w == nil {
		return nil
	}
	st := w.Stats()
	limit := st.Limit
	if limit == 0 {
		limit = watch.DefaultLimit
	}
	out := &contract.WatcherStatus{PRs: st.PRs, Cycle: st.Cycle.Round(time.Second).String(), Budget: fmt.Sprintf("%g%%", st.Budget*100),
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
func writesStatus(wp ghclient.WritePacing, now time.Time) *contract.WritesStatus {
	held, waits := wp.HeldUntil.After(now), wp.NextWrite.After(now)
	if !held && !waits {
		return nil
	}
	out := &contract.WritesStatus{ContentLastMinute: wp.ContentLastMinute, ContentLastHour: wp.ContentLastHour}
	if held {
		out.HeldUntil, out.Reason = wp.HeldUntil.UTC().Format(time.RFC3339), wp.Reason
	}
	if waits {
		out.NextWrite = wp.NextWrite.UTC().Format(time.RFC3339)
	}
	return out
}

// oneStatus is one monitor in detail, live or as an earlier server saved it.
func (s *Server) oneStatus(id string, ws *contract.WatcherStatus) *mcp.CallToolResult {
	if m, ok := s.mons.Live(id); ok {
		return contract.Result(contract.StatusOutput{Monitors: []contract.MonitorStatus{s.liveStatus(m, true)}, QuietUntil: s.stamp(s.quietUntil()), Watcher: ws})
	}
	sv, ok, err := s.cfg.State.Peek(monitor.ID(id))
	if err != nil {
		return contract.ToolError(fmt.Sprintf("monitor %q: %s", id, text.Error(err)))
	}
	if !ok {
		return contract.ToolError(contract.UnknownMonitor(id))
	}
	return contract.Result(contract.StatusOutput{Monitors: []contract.MonitorStatus{s.savedStatus(sv, true)}, QuietUntil: s.stamp(s.quietUntil()), Watcher: ws})
}

// savedStatus is a monitor an earlier process saved, as it stands in the state directory. It is
// read, not resumed: the next call that names it resumes it.
func (s *Server) savedStatus(sv store.Record, detail bool) contract.MonitorStatus {
	id := monitor.ID(sv.Ref.String())
	pos := sv.Position
	m, err := statemachine.Restore(s.cfg.Machine, pos)
	if err == nil {
		pos = m.Position() // an older version's position, placed as this build places it
	}
	st := contract.MonitorStatus{MonitorID: id, PR: sv.Ref.String(), Title: contract.FencedTitle(pos.Monitor.Title, detail), State: string(pos.Node.State()), Saved: true,
		Summary: sv.Ref.String() + " · saved by an earlier server; not polled since it started"}
	if detail {
		st.Detail = &contract.MonitorDetail{Node: string(pos.Node), Flow: string(pos.Node.Flow())}
	}
	if err == nil {
		st.Pending = contract.PendingOutput(id, m.Pending(), detail)
	}
	return s.withQuiet(st, pos)
}

// liveStatus is one of this process's monitors as it stands.
func (s *Server) liveStatus(m *monitor.Monitor, detail bool) contract.MonitorStatus {
	v := m.View()
	pos, f := v.Pos, v.Facts
	st := contract.MonitorStatus{MonitorID: m.ID, PR: m.Ref.String(), Title: contract.FencedTitle(pos.Monitor.Title, detail), State: string(pos.Node.State()),
		Summary: summarize(m.Ref.String(), f), Pending: contract.PendingOutput(m.ID, v.Pending, detail)}
	if f != nil {
		st.Attention = string(f.Attention.Kind)
	}
	if detail {
		d := &contract.MonitorDetail{Node: string(pos.Node), Flow: string(pos.Node.Flow())}
		st.Detail = d
		if v.LastAction != nil {
			last := contract.BoundOutput(*v.LastAction, contract.StatusBudget)
			d.LastAction = &last
		}
		if f != nil {
			d.AttentionReason = statemachine.WaitingFor(f)
			d.LastPoll = v.FactsAt.UTC().Format(time.RFC3339)
			d.NeedsRefine = f.Refine.NeedsRefine
			d.CI = fmt.Sprintf("%d passed, %d failed, %d running, %d cancelled of %d", f.CI.Passed, f.CI.Failed, f.CI.Pending, f.CI.Cancelled, f.CI.Total)
			d.Reviews = &contract.ReviewsSummary{Approvals: f.Reviews.Approvals, StaleApprovals: f.Reviews.StaleApprovals,
				ChangesRequestedBy: f.Reviews.ChangesRequestedBy, NotActedOn: notActedOn(f)}
		}
	}
	return s.withQuiet(st, pos)
}

package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/statemachine"
)

func (s *Server) statusTool() server.ServerTool {
	tool := mcp.NewTool("pr_monitor_status",
		mcp.WithDescription("Read-only: what each monitor knows (the last poll's facts, its state, the open question or task, the last action). "+
			"Omit monitor_id for every running monitor, including those an earlier server saved. It changes nothing and makes no GitHub request."),
		mcp.WithInputSchema[StatusInput](),
		mcp.WithOutputSchema[StatusOutput](),
		mcp.WithTitleAnnotation("Pull request monitor status"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	return server.ServerTool{Tool: tool, Handler: s.handleStatus}
}

func (s *Server) handleStatus(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in StatusInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	out := StatusOutput{Monitors: []MonitorStatus{}}
	if in.MonitorID != "" && in.MonitorID != "all" {
		if m, ok := s.live(in.MonitorID); ok {
			out.Monitors = append(out.Monitors, m.status())
			return structured(out), nil
		}
		sv, ok, err := s.cfg.State.Peek(monitorID(in.MonitorID))
		if err != nil {
			return toolError(fmt.Sprintf("monitor %q: %s", in.MonitorID, oneLine(err))), nil
		}
		if !ok {
			return toolError(fmt.Sprintf("unknown monitor %q", in.MonitorID)), nil
		}
		out.Monitors = append(out.Monitors, s.savedStatus(sv))
		return structured(out), nil
	}
	for _, m := range s.all() {
		out.Monitors = append(out.Monitors, m.status())
	}
	saved, err := s.cfg.State.List()
	if err != nil {
		return toolError("list the saved monitors: " + oneLine(err)), nil
	}
	for _, sv := range saved {
		if _, live := s.live(sv.Ref.String()); !live && !sv.Stopped {
			out.Monitors = append(out.Monitors, s.savedStatus(sv))
		}
	}
	sort.Slice(out.Monitors, func(i, j int) bool { return out.Monitors[i].MonitorID < out.Monitors[j].MonitorID })
	return structured(out), nil
}

// savedStatus is a monitor an earlier process saved, as it stands in the state directory. It is
// read, not resumed: the next call that names it resumes it.
func (s *Server) savedStatus(sv store.Record) MonitorStatus {
	id := monitorID(sv.Ref.String())
	pos := sv.Position
	st := MonitorStatus{MonitorID: id, PR: sv.Ref.String(), Title: pos.Monitor.Title, State: string(pos.Node.State()),
		Node: string(pos.Node), Flow: string(pos.Node.Flow()), Saved: true,
		Summary: sv.Ref.String() + " · saved by an earlier server; not polled since it started"}
	if m, err := statemachine.Restore(s.cfg.Machine, pos); err == nil {
		if p := m.Pending(); p.Kind != statemachine.ActionPolling {
			po := actionOutput(id, p)
			st.Pending = &po
		}
	}
	return st
}

func (m *monitor) status() MonitorStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	pos := m.m.Position()
	st := MonitorStatus{MonitorID: m.id, PR: m.ref.String(), Title: statemachine.Untrusted(pos.Monitor.Title).Fenced(), State: string(pos.Node.State()),
		Node: string(pos.Node), Flow: string(pos.Node.Flow()), Summary: summarize(m.ref.String(), m.facts)}
	if m.lastAction != nil {
		last := boundOutput(*m.lastAction, statusBudget)
		st.LastAction = &last
	}
	if p := m.m.Pending(); p.Kind != statemachine.ActionPolling {
		po := actionOutput(m.id, bound(p, statusBudget))
		st.Pending = &po
	}
	if f := m.facts; f != nil {
		st.Attention, st.AttentionReason = string(f.Attention.Kind), statemachine.Reason(f.Attention)
		st.LastPoll = m.factsAt.UTC().Format(time.RFC3339)
		st.NeedsRefine = f.Refine.NeedsRefine
		st.CI = fmt.Sprintf("%d passed, %d failed, %d running, %d cancelled of %d", f.CI.Passed, f.CI.Failed, f.CI.Pending, f.CI.Cancelled, f.CI.Total)
		st.Reviews = &ReviewsSummary{Approvals: f.Reviews.Approvals, StaleApprovals: f.Reviews.StaleApprovals, ChangesRequestedBy: f.Reviews.ChangesRequestedBy}
	}
	return st
}

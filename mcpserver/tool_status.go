package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/statemachine"
)

func (s *Server) statusTool() server.ServerTool {
	tool := mcp.NewTool("pr_monitor_status",
		mcp.WithDescription("Read-only: what each monitor knows (the last poll's facts, its state, the open question or task, the last action). "+
			"Omit monitor_id for every monitor. It changes nothing and makes no GitHub request."),
		mcp.WithInputSchema[MonitorInput](),
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
	var in MonitorInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	ms := s.all()
	if in.MonitorID != "" && in.MonitorID != "all" {
		m, ok := s.lookup(in.MonitorID)
		if !ok {
			return toolError(fmt.Sprintf("unknown monitor %q", in.MonitorID)), nil
		}
		ms = []*monitor{m}
	}
	out := StatusOutput{Monitors: []MonitorStatus{}}
	for _, m := range ms {
		out.Monitors = append(out.Monitors, m.status())
	}
	return structured(out), nil
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

package mcpserver

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

func (s *Server) handleStart(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StartInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	ref, err := prstatus.ParsePRRef(in.PR)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	if s.cfg.WebHost != "" {
		if err := prstatus.CheckHost(in.PR, "https://"+s.cfg.WebHost+"/"); err != nil {
			return contract.ToolError(err.Error()), nil // before any request: the reference names another GitHub
		}
	}
	gh, err := s.github(ctx)
	if err != nil {
		return contract.ToolError(contract.GitHubCause(err)), nil
	}
	snap, err := gh.Snapshot(ctx, ref)
	if err != nil {
		return contract.ToolError(fmt.Sprintf("%s: %s", ref, contract.GitHubCause(err))), nil
	}
	if err := prstatus.CheckHost(in.PR, snap.URL); err != nil {
		return contract.ToolError(err.Error()), nil
	}
	m, resumed, err := s.mons.Attach(ref)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	f := s.derive(snap, s.cfg.Now())
	var freshSeq uint64
	if w, err := s.ensureWatcher(); err == nil {
		// The watcher takes this snapshot as the pull request's first: starting costs one request.
		w.Publish(m.Ref, snap)
		w.Add(m.Ref)
		if u, ok := w.Latest(m.Ref); ok {
			freshSeq = u.Seq
		}
	}
	m.Attached(&f, s.cfg.Now(), freshSeq)
	s.push.attached(m)
	out := contract.StartOutput{MonitorID: m.ID, Resumed: resumed, PR: ref.String(), Title: statemachine.Untrusted(f.Title).Fenced(), URL: f.URL,
		Summary: summarize(ref.String(), &f),
		Next:    fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"ready\")", m.ID)}
	if p := m.Pending(); resumed && p.Kind != statemachine.ActionPolling {
		po := s.hushed(contract.Output(m.ID, p))
		out.Pending = &po
	}
	return contract.Result(out), nil
}

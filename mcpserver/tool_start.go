package mcpserver

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// ToolStart names the tool that starts (or resumes) watching a pull request.
const ToolStart = "pr_monitor_start"

func startTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStart)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStart,
		mcp.WithDescription("Start watching a pull request until it is merged, or resume an earlier monitor of it where it left off. "+
			"Call it right after pushing, then call pr_monitor_next_step with event=ready and follow the actions it returns."),
		schemas,
		mcp.WithTitleAnnotation("Start monitoring a pull request"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, nil
}

func (s *Server) handleStart(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in StartInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	ref, err := prstatus.ParsePRRef(in.PR)
	if err != nil {
		return toolError(err.Error()), nil
	}
	if s.cfg.WebHost != "" {
		if err := prstatus.CheckHost(in.PR, "https://"+s.cfg.WebHost+"/"); err != nil {
			return toolError(err.Error()), nil // before any request: the reference names another GitHub
		}
	}
	gh, err := s.github(ctx)
	if err != nil {
		return toolError(githubCause(err)), nil
	}
	snap, err := gh.Snapshot(ctx, ref)
	if err != nil {
		return toolError(fmt.Sprintf("%s: %s", ref, githubCause(err))), nil
	}
	if err := prstatus.CheckHost(in.PR, snap.URL); err != nil {
		return toolError(err.Error()), nil
	}
	m, resumed, err := s.attach(ref)
	if err != nil {
		return toolError(err.Error()), nil
	}
	f := s.derive(snap, s.cfg.Now())
	var freshSeq uint64
	if w, err := s.ensureWatcher(); err == nil {
		// The watcher takes this snapshot as the pull request's first: starting costs one request.
		w.Publish(m.ref, snap)
		w.Add(m.ref)
		if u, ok := w.Latest(m.ref); ok {
			freshSeq = u.Seq
		}
	}
	m.attached(&f, s.cfg.Now(), freshSeq)
	s.push.attached(m)
	out := StartOutput{MonitorID: m.id, Resumed: resumed, PR: ref.String(), Title: statemachine.Untrusted(f.Title).Fenced(), URL: f.URL,
		Summary: summarize(ref.String(), &f),
		Next:    fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"ready\")", m.id)}
	if p := m.pending(); resumed && p.Kind != statemachine.ActionPolling {
		po := s.hushed(actionOutput(m.id, p))
		out.Pending = &po
	}
	return structured(out), nil
}

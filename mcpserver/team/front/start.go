package front

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// pr_monitor_start: SignalWithStart on the pull request's monitor, owned by the caller, then the
// answer from its first read (which the workflow makes itself: this process reads no GitHub).

// errForeign: the pull request's monitor runs for another user of the deployment.
var errForeign = errors.New("another user of this deployment monitors that pull request; one monitor per pull request")

func (f *Front) handleStart(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StartInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	ref, err := prstatus.ParsePRRef(in.PR)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	user := userOf(ctx)
	st, resumed, err := f.start(ctx, ref, user, "start")
	if err != nil {
		return contract.ToolError(fmt.Sprintf("%s: %s", ref, text.Error(err))), nil
	}
	if err := prstatus.CheckHost(in.PR, st.URL); err != nil {
		if !resumed {
			_ = monitorwf.Stop(ctx, f.cfg.Client, st.MonitorID)
		}
		return contract.ToolError(err.Error()), nil
	}
	out := contract.StartOutput{MonitorID: st.MonitorID, Resumed: resumed, PR: ref.String(), Title: contract.FencedTitle(string(st.Title), true),
		URL: st.URL, Summary: st.Summary, Next: fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"ready\")", st.MonitorID)}
	if resumed && (st.Question != nil || st.Task != "") {
		if act, err := monitorwf.Pending(ctx, f.cfg.Client, st.MonitorID); err == nil && act.Kind != statemachine.ActionPolling {
			p := contract.AgentAction(st.MonitorID, st.PR, st.Summary, act)
			out.Pending = &p
		}
	}
	return contract.Result(out), nil
}

// errNoWriteAccess: the user opened the pull request but has no write access to its repository
// (assoc is GitHub's author association, "" when not read).
func errNoWriteAccess(assoc prstatus.Association) error {
	return fmt.Errorf("you have no write access to this repository (your association with it: %s); "+
		"this deployment's workers act with its GitHub App's access, so they work only on pull requests by people with write access. "+
		"Monitor it with prmonitor on your own machine and your own token instead", assoc.Words())
}

// start starts (or finds running) ref's monitor for user and returns its status after its first
// read. A monitor of someone else's is refused; so is a pull request the user did not open, or
// opened without write access to the repository (the deployment's GitHub App could otherwise be
// made to work on anyone's pull request: the workflow itself ends such a monitor at that read,
// before any GitHub work), and one the worker cannot read: a monitor this call started for any of
// them is stopped again.
func (f *Front) start(ctx context.Context, ref prstatus.PRRef, user monitorwf.Owner, kind string) (monitorwf.Status, bool, error) {
	id := monitorwf.WorkflowID(ref)
	if running, err := f.claim(ctx, id, user); err != nil {
		return monitorwf.Status{}, false, err
	} else if running {
		st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, id)
		return st, true, err
	}
	if err := f.starter.Notify(ctx, ref, monitorwf.Change{Kind: kind, Owner: user.Key(), OwnerLogin: user.Login}); err != nil {
		return monitorwf.Status{}, false, err
	}
	st, err := f.firstRead(ctx, id)
	if err != nil {
		return st, false, err
	}
	var why error
	switch {
	case st.Title == "" && st.LastError != "" && st.Author == "": // the read failed
		why = errors.New(strings.TrimPrefix(st.LastError, "reading the pull request: "))
	case !strings.EqualFold(st.Author, user.Login):
		why = fmt.Errorf("this pull request is not yours (it was opened by someone else); a monitor works only on its owner's pull requests")
	case !st.AuthorAssociation.CanWrite():
		why = errNoWriteAccess(st.AuthorAssociation)
	}
	if why != nil {
		_ = monitorwf.Stop(ctx, f.cfg.Client, id)
		return st, false, why
	}
	return st, false, nil
}

// claim says whether monitor id already runs for user; errForeign when it runs for someone else.
func (f *Front) claim(ctx context.Context, id string, user monitorwf.Owner) (running bool, err error) {
	found, err := f.owned(ctx, id, user)
	switch {
	case err == nil:
		return found.Running, nil
	case !errors.Is(err, monitorwf.ErrUnknownMonitor):
		return false, err
	}
	d, derr := f.cfg.Client.DescribeWorkflow(ctx, id, "")
	if derr == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, errForeign
	}
	return false, nil
}

// firstRead waits, within StartWait, for a new monitor's first read.
func (f *Front) firstRead(ctx context.Context, id string) (monitorwf.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.StartWait)
	defer cancel()
	for {
		st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, id)
		if err == nil && !st.LastRead.IsZero() {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("the monitor started but has not read the pull request yet (is a worker running on task queue %q?); "+
				"call pr_monitor_start again in a moment", f.cfg.TaskQueue)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// owned is monitorwf.Owned for user, adopting for user's GitHub user id a running monitor keyed by
// user's login (one started before owners had ids): from then on only the id owns it.
func (f *Front) owned(ctx context.Context, id string, user monitorwf.Owner) (monitorwf.Found, error) {
	found, err := monitorwf.Owned(ctx, f.cfg.Client, id, user)
	if err == nil && found.Legacy && found.Running {
		if aerr := monitorwf.Adopt(ctx, f.cfg.Client, id, user); aerr != nil {
			f.cfg.Logger.Warn("adopt a monitor for its owner's GitHub user id", "monitor", id, "err", aerr)
		}
	}
	return found, err
}

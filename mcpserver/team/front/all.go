package front

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// monitor_id=all: whichever of the user's monitors needs them first. The monitors that wait on
// their user or agent are found with one visibility query (their PrmonitorWaitingOn search
// attribute), looked at again every allEvery until the call's bound; the first one found, in id
// order, gets the ready and hands out its action. An answer sent with monitor_id=all goes to the
// monitor whose action this process handed out last for the user.

// allEvery is how often a waiting monitor_id=all call looks for a monitor that needs the user.
const allEvery = 2 * time.Second

// allBatch bounds the monitors one look reads.
const allBatch = 50

func (f *Front) nextStepAll(ctx context.Context, c *call, step monitorwf.NextStepRequest) *mcp.CallToolResult {
	c.viaAll = true
	if step.Event != statemachine.EventReady {
		f.mu.Lock()
		id := f.handed[c.user]
		f.mu.Unlock()
		if id == "" {
			return mcpserver.ToolError("no action was handed out with monitor_id=all here: answer with the monitor_id the action named")
		}
		c.id = id
		if _, err := monitorwf.Owned(ctx, f.cfg.Client, c.id, c.user); err != nil {
			return f.ownedError(c.id, err)
		}
		return f.drive(ctx, c, step)
	}
	for {
		ids, _, err := monitorwf.List(ctx, f.cfg.Client, f.cfg.Namespace, monitorwf.ListQuery{Owner: c.user, Waiting: true, Max: allBatch})
		if err != nil && ctx.Err() == nil {
			return mcpserver.ToolError(oneLine(err))
		}
		for _, id := range ids {
			if res := f.handOut(ctx, c, id); res != nil {
				return res
			}
		}
		wait := min(allEvery, time.Until(c.deadline)-updateMargin)
		if wait <= 0 {
			return f.allWatching(ctx, c)
		}
		select {
		case <-ctx.Done():
			return f.allWatching(ctx, c)
		case <-time.After(wait):
		}
	}
}

// handOut sends ready to monitor id and renders its action when it has one for the user or the
// agent (visibility trails the workflows: it may have moved on); nil when it has none.
func (f *Front) handOut(ctx context.Context, c *call, id string) *mcp.CallToolResult {
	one := *c
	one.id = id
	one.deadline = time.Now().Add(updateMargin + time.Second) // the Update answers at once: it does not wait
	r, err := f.update(ctx, &one, monitorwf.NextStepRequest{Event: statemachine.EventReady})
	if err != nil {
		return nil
	}
	switch r.Action.Kind {
	case statemachine.ActionPolling:
		return nil
	case statemachine.ActionAskUser:
		if r.Action.Question != nil {
			one.deadline = c.deadline
			res := f.ask(ctx, &one, r)
			c.rounds = one.rounds
			return res
		}
	}
	return f.render(&one, r.PR, r.Summary, r.Action)
}

// allWatching is the answer of a monitor_id=all call whose bound came with nothing for the user.
func (f *Front) allWatching(ctx context.Context, c *call) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	ids, more, _ := monitorwf.List(ctx, f.cfg.Client, f.cfg.Namespace, monitorwf.ListQuery{Owner: c.user})
	n := prstatus.Plural(len(ids), "pull request", "pull requests")
	if more {
		n = "over " + n
	}
	return mcpserver.Result(mcpserver.ActionOutput{Action: string(statemachine.ActionPolling), MonitorID: "all", State: string(statemachine.StatePolling),
		Message: fmt.Sprintf("Still watching %s; nothing needs you yet. Call pr_monitor_next_step with monitor_id=all and event=ready to keep waiting.", n),
		Next:    `pr_monitor_next_step(monitor_id="all", event="ready")`})
}

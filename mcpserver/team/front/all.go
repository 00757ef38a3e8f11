package front

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// monitor_id=all: whichever of the user's monitors needs them first. The monitors that wait on
// their user or agent are found with one visibility query (their PrmonitorWaitingOn search
// attribute), looked at again every allEvery until the call's bound. The first one, in id order,
// whose action was not handed out yet gets the ready and hands its action out; one already handed
// out and still open (a task the agent works on, a question already put) comes back only when
// nothing new came by the call's bound, without a ready (which, mid-task, would ask the user how
// the task went), as the embedded server's scheduler does. An answer sent with monitor_id=all goes
// to the monitor whose action this process handed out last for the user.

// allEvery is how often a waiting monitor_id=all call looks for a monitor that needs the user.
const allEvery = 2 * time.Second

// allBatch bounds the monitors one look reads.
const allBatch = 50

func (f *Front) nextStepAll(ctx context.Context, c *call, step monitorwf.NextStepRequest) *mcp.CallToolResult {
	c.viaAll = true
	if step.Event != statemachine.EventReady {
		f.mu.Lock()
		id := f.handed[c.user.Key()]
		f.mu.Unlock()
		if id == "" {
			return contract.ToolError("no action was handed out with monitor_id=all here: answer with the monitor_id the action named")
		}
		c.id = id
		found, err := f.owned(ctx, c.id, c.user)
		if err != nil {
			return f.ownedError(c.id, err)
		}
		c.run = found.Run
		return f.drive(ctx, c, step)
	}
	var again string // a monitor whose open action was handed out already
	for {
		ids, _, err := monitorwf.List(ctx, f.cfg.Client, f.cfg.Namespace, monitorwf.ListQuery{Owner: c.user, Waiting: true, Max: allBatch})
		if err != nil && ctx.Err() == nil {
			return contract.ToolError(text.Error(err))
		}
		again = ""
		for _, id := range ids {
			st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, id)
			if err != nil {
				continue
			}
			if f.handedOut(c.user, st) {
				if again == "" {
					again = id
				}
				continue
			}
			if res := f.handOut(ctx, c, id); res != nil {
				return res
			}
		}
		wait := min(allEvery, time.Until(c.deadline)-updateMargin)
		if wait <= 0 || ctx.Err() != nil {
			if again != "" {
				if res := f.handOutAgain(ctx, c, again); res != nil {
					return res
				}
			}
			return f.allWatching(ctx, c)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// handedOut: st's open action went out already (its task by a next_step, its question by this
// process to the user).
func (f *Front) handedOut(user monitorwf.Owner, st monitorwf.Status) bool {
	switch {
	case st.WaitingOn == monitorwf.WaitingOnAgent:
		return st.Handed
	case st.WaitingOn == monitorwf.WaitingOnUser && st.Question != nil:
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.asked[user.Key()+" "+st.MonitorID] == st.Question.Seq
	}
	return false
}

// handOutAgain renders monitor id's open action once more, without an Update.
func (f *Front) handOutAgain(ctx context.Context, c *call, id string) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, id)
	if err != nil {
		return nil
	}
	act, err := monitorwf.Pending(ctx, f.cfg.Client, id)
	if err != nil || (act.Kind != statemachine.ActionExecute && act.Kind != statemachine.ActionAskUser) {
		return nil
	}
	one := *c
	one.id = id
	if act.Kind == statemachine.ActionAskUser && act.Question != nil {
		// The form was not answered within an earlier call: the agent asks the user now (its
		// answer is a relay only where a host could not show the question).
		act.Message = "This question is still open: ask the user and answer with user_chose."
		relayed := f.relays.Relayed(contract.QuestionKey{Monitor: id, Run: st.Run, Seq: act.Question.Seq})
		why := contract.NoForms
		if relayed {
			why = contract.FormFailed
		}
		return f.toAgent(&one, monitorwf.Reply{MonitorID: id, Run: st.Run, PR: st.PR, Summary: st.Summary, Action: act}, why, relayed)
	}
	return f.render(&one, st.PR, st.Summary, act)
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
		if q := r.Action.Question; q != nil {
			f.mu.Lock()
			if len(f.asked) > 10_000 { // a bound on memory; forgetting only puts a question first again
				clear(f.asked)
			}
			f.asked[c.user.Key()+" "+id] = q.Seq
			f.mu.Unlock()
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
	n := text.Count(len(ids), "pull request", "pull requests")
	if more {
		n = "over " + n
	}
	return contract.Result(contract.ActionOutput{Action: string(statemachine.ActionPolling), MonitorID: "all", State: string(statemachine.StatePolling),
		Message: fmt.Sprintf("Still watching %s; nothing needs you yet. Call pr_monitor_next_step with monitor_id=all and event=ready to keep waiting.", n),
		Next:    `pr_monitor_next_step(monitor_id="all", event="ready")`})
}

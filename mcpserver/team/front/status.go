package front

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// pr_monitor_status: the user's monitors from Temporal's visibility (their owner search
// attribute), each read with the workflow's status Query (no history event); one monitor by id
// in detail, with the action it waits on whole.

// maxStatus bounds the monitors one listing reads (the result keeps what fits in its bound).
const maxStatus = 200

// queryParallel bounds the Queries in flight for one listing.
const queryParallel = 8

func (f *Front) handleStatus(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StatusInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	user := userOf(ctx)
	if in.MonitorID != "" && in.MonitorID != "all" {
		if _, err := f.owned(ctx, in.MonitorID, user); err != nil {
			return f.ownedError(in.MonitorID, err), nil
		}
		st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, in.MonitorID)
		if err != nil {
			return contract.ToolError("monitor " + in.MonitorID + ": " + text.Error(err)), nil
		}
		item := lineItem(st, true)
		if act, err := monitorwf.Pending(ctx, f.cfg.Client, in.MonitorID); err == nil {
			item.Pending = contract.PendingOutput(st.MonitorID, act, true)
		}
		return contract.Result(contract.StatusOutput{Monitors: []contract.MonitorStatus{item}}), nil
	}
	sts, omitted, err := f.statuses(ctx, user, maxStatus)
	if err != nil {
		return contract.ToolError(text.Error(err)), nil
	}
	items := make([]contract.MonitorStatus, 0, len(sts))
	for _, st := range sts {
		items = append(items, lineItem(st, false))
	}
	out := contract.StatusListing(items, contract.MaxPayload)
	out.Omitted += omitted
	return contract.Result(out), nil
}

// statuses reads the status of each of user's running monitors (at most max; omitted says how
// many more there are). A monitor that does not answer its Query is left out, and so
// is one that has just ended (visibility trails the workflow by a moment).
func (f *Front) statuses(ctx context.Context, user monitorwf.Owner, max int) (sts []monitorwf.Status, omitted int, err error) {
	q := monitorwf.ListQuery{Owner: user, Max: max}
	ids, more, err := monitorwf.List(ctx, f.cfg.Client, f.cfg.Namespace, q)
	if err != nil {
		return nil, 0, err
	}
	if more {
		omitted = 1
		if n, err := monitorwf.Count(ctx, f.cfg.Client, f.cfg.Namespace, q); err == nil && n > len(ids) {
			omitted = n - len(ids)
		}
	}
	out := make([]*monitorwf.Status, len(ids))
	sem := make(chan struct{}, queryParallel)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if st, err := monitorwf.QueryMonitor(qctx, f.cfg.Client, id); err == nil && st.WaitingOn != monitorwf.WaitingOnNobody {
				out[i] = &st
			}
		}()
	}
	wg.Wait()
	for _, st := range out {
		if st != nil {
			sts = append(sts, *st)
		}
	}
	return sts, omitted, nil
}

// lineItem is a monitor's status as pr_monitor_status shows it.
func lineItem(st monitorwf.Status, detail bool) contract.MonitorStatus {
	item := contract.MonitorStatus{MonitorID: st.MonitorID, PR: st.PR, Title: contract.FencedTitle(string(st.Title), detail),
		State: string(st.State), Summary: st.Summary, Attention: st.Attention}
	switch {
	case st.Question != nil:
		item.Pending = contract.PendingOutput(st.MonitorID, statemachine.Action{Kind: statemachine.ActionAskUser, State: st.State, Question: st.Question}, false)
	case st.Task != "":
		item.Pending = contract.PendingOutput(st.MonitorID, statemachine.Action{Kind: statemachine.ActionExecute, State: st.State, Task: st.Task}, false)
	}
	if detail {
		item.Detail = &contract.MonitorDetail{Node: string(st.Node), Flow: string(st.Flow)}
		if !st.LastRead.IsZero() {
			item.Detail.LastPoll = st.LastRead.UTC().Format(time.RFC3339)
		}
	}
	return item
}

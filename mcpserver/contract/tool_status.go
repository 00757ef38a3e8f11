package contract

import (
	"cmp"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// ToolStatus names the read-only tool that shows where monitors stand.
const ToolStatus = "pr_monitor_status"

// ListTitle bounds a title in a listing's line item (before it is fenced).
const ListTitle = 80

// ListQuestion bounds the question's text in a listing's line item.
const ListQuestion = 160

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

// StatusListing keeps the line items that fit in budget bytes, those waiting on someone first, and
// lists them by monitor id.
func StatusListing(items []MonitorStatus, budget int) StatusOutput {
	slices.SortFunc(items, func(a, b MonitorStatus) int {
		return cmp.Or(cmp.Compare(waitsOnNobody(a), waitsOnNobody(b)), cmp.Compare(a.MonitorID, b.MonitorID))
	})
	out := StatusOutput{Monitors: []MonitorStatus{}}
	used := JSONSize(StatusOutput{Monitors: []MonitorStatus{}, Omitted: len(items)})
	for i, it := range items {
		n := JSONSize(it) + len(",")
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

// FencedTitle is a monitor's title from GitHub, fenced; a listing's is shortened first.
func FencedTitle(t string, detail bool) string {
	if !detail {
		t = text.ClipBytes(t, ListTitle)
	}
	return statemachine.Untrusted(t).Fenced()
}

// PendingOutput is what a monitor waits on, nil when it only polls: bounded in detail, and in a
// listing cut to the action's kind, task and question (its id, seq and the start of its text).
func PendingOutput(id string, act statemachine.Action, detail bool) *ActionOutput {
	if act.Kind == statemachine.ActionPolling {
		return nil
	}
	if detail {
		out := Output(id, Bound(act, StatusBudget))
		return &out
	}
	out := Output(id, statemachine.Action{Kind: act.Kind, State: act.State, Task: act.Task, Question: act.Question, Server: act.Server})
	if q := act.Question; q != nil {
		out.Question = &elicitation.Question{ID: q.ID, Seq: q.Seq, Text: ClipProse(q.Text, ListQuestion)}
	}
	out.Message, out.Next = "", ""
	return &out
}

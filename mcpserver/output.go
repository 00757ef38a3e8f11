package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/statemachine"
)

// output turns a machine action into what the agent sees.
func (d *driver) output(act statemachine.Action) ActionOutput {
	out := actionOutput(d.mon.id, act)
	out.PR = d.mon.ref.String()
	out.Summary = d.summary()
	d.annotateSnooze(&out, act)
	return out
}

func actionOutput(id string, act statemachine.Action) ActionOutput {
	out := ActionOutput{
		Action: string(act.Kind), MonitorID: id, State: string(act.State), Flow: string(act.Flow),
		Task: string(act.Task), Instructions: act.Instructions, Context: act.Context, Message: act.Message,
	}
	if out.Flow == string(statemachine.FlowNone) {
		out.Flow = ""
	}
	for _, e := range act.ExpectedEvents {
		out.ExpectedEvents = append(out.ExpectedEvents, string(e))
	}
	if q := act.Question; q != nil {
		qc := *q
		out.Question = &qc
	}
	switch act.Kind {
	case statemachine.ActionExecute:
		out.Next = fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=<one of %s>, data={...})", id, strings.Join(out.ExpectedEvents, ", "))
	case statemachine.ActionAskUser:
		out.Next = fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"user_chose\", choice=<a choice's value>, question_seq=%d)", id, act.Question.Seq)
	case statemachine.ActionPolling:
		out.Next = fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"ready\")", id)
	case statemachine.ActionServer: // never reaches an agent; shown while a monitor is mid-action
		out.Action = string(statemachine.ActionPolling)
		out.Next = fmt.Sprintf("pr_monitor_next_step(monitor_id=%q, event=\"ready\")", id)
		out.Message = "The server is doing GitHub work: " + act.Server.Describe
	}
	return out
}

func (d *driver) summary() string {
	f, _ := d.mon.lastFacts()
	return summarize(d.mon.ref.String(), f)
}

// stillWaiting is the polling action returned when the call has blocked for MaxBlock.
func (d *driver) stillWaiting(act statemachine.Action) ActionOutput {
	out := d.output(act)
	if act.SnoozedUntil.IsZero() {
		out.Message = "Still watching; nothing needs you yet. Call pr_monitor_next_step with event=ready to keep waiting."
	}
	return out
}

// again is returned when a call has used its round trips: the question is asked in the next call.
func (d *driver) again(act statemachine.Action) ActionOutput {
	out := d.output(statemachine.Action{Kind: statemachine.ActionPolling, State: act.State, Flow: act.Flow, Node: act.Node})
	out.Message = "A question is waiting for the user; call pr_monitor_next_step with event=ready to show it."
	return out
}

func (d *driver) result(out ActionOutput) *mcp.CallToolResult {
	if d.idle || d.reached {
		return &mcp.CallToolResult{} // a monitor_id=all scan: nothing reaches the agent
	}
	if d.once {
		out = allOutput(out)
	}
	d.mon.remember(&out)
	if out.Action == string(statemachine.ActionExecute) {
		d.mon.handOut()
	}
	return structured(out)
}

// structured renders a tool result: structured content plus the same JSON as text for clients
// that only read text. The text is for a model to read: <, > and & stay as they are (a fence
// reads <<<untrusted GitHub text …>>>, not \u003c\u003c\u003c…).
func structured(v any) *mcp.CallToolResult {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return toolError("could not encode the result: " + err.Error())
	}
	return mcp.NewToolResultStructured(v, strings.TrimSuffix(b.String(), "\n"))
}

// toolError is an isError result with a one-line cause.
func toolError(msg string) *mcp.CallToolResult {
	return mcp.NewToolResultError(strings.Join(strings.Fields(msg), " "))
}

package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What the agent reads: a machine action as an ActionOutput, and the tool result that carries it.

// Output is act as monitor id hands it to the agent: the action's kind, state, flow (none when it
// has none), task, question, and the call to make next.
func Output(id string, act statemachine.Action) ActionOutput {
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

// ViaAll is an action handed out by monitor_id=all: it names its pull request, and the call
// to make next goes on with all.
func ViaAll(out ActionOutput) ActionOutput {
	out.Next = strings.Replace(out.Next, fmt.Sprintf("monitor_id=%q", out.MonitorID), `monitor_id="all"`, 1)
	return out
}

// Result renders a tool result: structured content plus the same JSON as text for clients
// that only read text. The text is for a model to read: <, > and & stay as they are (a fence
// reads <<<untrusted GitHub text …>>>, not \u003c\u003c\u003c…).
func Result(v any) *mcp.CallToolResult {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ToolError("could not encode the result: " + err.Error())
	}
	return mcp.NewToolResultStructured(v, strings.TrimSuffix(b.String(), "\n"))
}

// ToolError is an isError result with a one-line cause.
func ToolError(msg string) *mcp.CallToolResult {
	return mcp.NewToolResultError(text.OneLine(msg))
}

// AgentAction is act as the agent reads it, bounded as every action handed out (ActionBudget). pr
// and summary name the pull request and its state in one line.
func AgentAction(id, pr, summary string, act statemachine.Action) ActionOutput {
	out := Output(id, Bound(act, ActionBudget))
	out.PR, out.Summary = pr, summary
	return out
}

// UnknownMonitor is the tool error for a monitor id nobody started here (over HTTP, also another
// user's: the two read alike).
func UnknownMonitor(id string) string { return fmt.Sprintf("unknown monitor %q", id) }

// UnknownMonitorToDrive is UnknownMonitor for a next_step, which says what to call first.
func UnknownMonitorToDrive(id string) string {
	return UnknownMonitor(id) + ": call pr_monitor_start first"
}

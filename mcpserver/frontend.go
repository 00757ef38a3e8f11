package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What a second front end shares with this one: the team deployment's HTTP server
// (mcpserver/team/front) serves the same tools with handlers of its own over Temporal. It takes
// from here the tools behind the same argument checks, an action rendered and bounded as this
// server renders it, the bound of a call for the client's host, a question as an elicitation form
// and the reading of its answer, so an agent reads one contract whichever server answers
// (docs/architecture.md#the-protocol).

// ServerTools returns the tools o offers, each with handlers[its name] behind the check of its
// arguments (input.go). A tool without a handler is an error.
func ServerTools(o ToolOptions, handlers map[string]server.ToolHandlerFunc) ([]server.ServerTool, error) {
	tools, err := Tools(o)
	if err != nil {
		return nil, err
	}
	out := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		h, ok := handlers[t.Name]
		if !ok {
			return nil, fmt.Errorf("mcpserver: no handler for %s", t.Name)
		}
		check, err := newInputCheck(t)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		out = append(out, server.ServerTool{Tool: t, Handler: check.wrap(h)})
	}
	return out, nil
}

// Prompts are the server's prompts (watch_pr, watch_all).
func Prompts() []server.ServerPrompt {
	var s *Server // prompts need nothing of a server
	return s.prompts()
}

// Instructions are the server's instructions to the agent (the initialize result's).
func Instructions() string { return instructionsText }

// AgentAction is act as the agent reads it, bounded as every action this server hands out (no
// more than 16 KB). pr and summary name the pull request and its state in one line.
func AgentAction(id, pr, summary string, act statemachine.Action) ActionOutput {
	out := actionOutput(id, bound(act, actionBudget))
	out.PR, out.Summary = pr, summary
	return out
}

// ViaAll is an action handed out by monitor_id=all: the call to make next goes on with all.
func ViaAll(out ActionOutput) ActionOutput { return allOutput(out) }

// PendingOutput is what a status line shows of the action a monitor waits on: whole (bounded)
// in detail, else cut to its kind, task and question; nil while it only polls.
func PendingOutput(id string, act statemachine.Action, detail bool) *ActionOutput {
	return pending(id, act, detail)
}

// StatusListing keeps the line items that fit a status result, those waiting on someone first.
func StatusListing(items []MonitorStatus) StatusOutput { return listing(items, maxPayload) }

// FencedTitle is a pull request's title from GitHub as a status or start result shows it: fenced,
// and shortened in a listing.
func FencedTitle(t string, detail bool) string { return title(t, detail) }

// BoundStartAll keeps a start_all result within one payload's bound.
func BoundStartAll(out StartAllOutput) StartAllOutput { return boundStartAll(out, maxPayload) }

// SkipReason says why start_all leaves a found pull request alone ("" to monitor it).
func SkipReason(pr ghclient.FoundPR, in StartAllInput) string { return skipReason(pr, in) }

// Result is a tool result: the structured content and the same JSON as text.
func Result(v any) *mcp.CallToolResult { return structured(v) }

// ToolError is an isError tool result with a one-line cause.
func ToolError(msg string) *mcp.CallToolResult { return toolError(msg) }

// NextStepEvent checks a next_step call's event, choice and seq and makes them the machine's input.
func NextStepEvent(in NextStepInput) (statemachine.Input, error) { return machineInput(in) }

// CallBound is how long a next_step call may wait for the client's host (docs/hosts.md): the
// host's name ("" when not known) and its bound.
func CallBound(ctx context.Context) (string, time.Duration) {
	return boundFor(HostBounds(), DefaultCallBound, clientInfo(ctx))
}

// ClientCanElicit reports whether the client declared form elicitation: the host can show the
// user a question.
func ClientCanElicit(ctx context.Context) bool {
	caps := clientCaps(ctx)
	return caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

// QuestionForm is q as an elicitation form for the negotiated protocol version.
func QuestionForm(q elicitation.Question, summary, version string) mcp.ElicitationParams {
	return elicitParams(q, summary, version)
}

// FormAnswer is what the user answered in a form: a choice (Kind InputEvent), a decline, a
// dismissal (InputCancel), or free text (InputFreeform).
type FormAnswer struct {
	Kind   statemachine.InputKind
	Choice elicitation.Value
	Text   string
}

// ReadForm reads an elicitation result for q.
func ReadForm(res *mcp.ElicitationResult, q elicitation.Question) FormAnswer {
	a := readElicitation(res, q)
	return FormAnswer{Kind: a.kind, Choice: a.choice, Text: a.text}
}

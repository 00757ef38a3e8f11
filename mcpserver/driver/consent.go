package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Consent (docs/security.md, "Consent") is the contract's rule (contract/consent.go); this file
// applies it to the stdio server. Its one connection is the host the user started it from, so what
// that client declared (no form elicitation, a task that cannot ask) is the host's word (the
// server's policy, which each monitor's relays keep). A monitor records the questions it handed to the agent because the host could
// not show them (questionToAgent), and forgets one when a form of it reaches the host (askWith).

// answeredByUser marks an answer the user gave in the host's prompt: the one way, besides a relay,
// to a merge. Every path that reads a form's answer comes through here (afterElicit).
func answeredByUser(in statemachine.Input) statemachine.Input { return in.From(statemachine.ByUser) }

// agentAnswer marks the agent's own user_chose: a relay when the open question is one this
// monitor handed the agent because the host could not show it, or the host shows no forms at all;
// else the agent's own, which may choose anything but a merge.
func (d *Driver) agentAnswer(in statemachine.Input) statemachine.Input {
	seq := in.QuestionSeq
	if seq == 0 {
		seq = contract.OpenQuestionSeq(d.mon.Position())
	}
	return d.mon.AgentAnswer(in, seq, !d.hostElicits())
}

// hostElicits reports whether the client declared form elicitation (an empty capability means
// form, as before URL mode existed), whatever it did with a form in this call.
func (d *Driver) hostElicits() bool {
	return contract.FormElicitation(contract.ClientCaps(d.ctx))
}

// taskAsksClient reports whether a call that runs as a 2025-11-25 MCP task can put a question to
// the user through the client: in the 2025-11-25 era it sends elicitation/create tied to its task
// (io.modelcontextprotocol/related-task); a 2026-07-28 client has no server-initiated requests, so
// such a task hands its questions to the agent, as a relay. (A task of the 2026-07-28 tasks
// extension asks inside the task through its input requests.) This is the one place that decides
// it (the stdio server runs the tasks: docs/architecture.md#one-next_step-call).
func taskAsksClient(ctx context.Context) bool {
	return !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
}

// tieToTask marks a form sent from inside a task as the task's (the 2025-11-25 tasks' related-task
// metadata), so the client shows it as the task's question.
func (d *Driver) tieToTask(p *mcp.ElicitationParams) {
	id := d.legacyTaskID()
	if id == "" {
		return
	}
	if p.Meta == nil {
		p.Meta = &mcp.Meta{}
	}
	if p.Meta.AdditionalFields == nil {
		p.Meta.AdditionalFields = map[string]any{}
	}
	p.Meta.AdditionalFields[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(id)
}

// confirmByUser asks the question again when a model read the user's free text as a choice that
// merges: a model's reading is not the user's choice, so the form comes back saying how their
// words were read, for the user to pick it themselves (or anything else).
func (d *Driver) confirmByUser(q elicitation.Question, v elicitation.Value, typed string) Outcome {
	act := d.mon.Pending()
	if act.Kind != statemachine.ActionAskUser || act.Question == nil || act.Question.Seq != q.Seq {
		return failure(fmt.Errorf("%w: that question is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState))
	}
	note := fmt.Sprintf("You wrote: %q. That reads as %q, which only your own pick can choose: pick it below to go ahead, or choose anything else.",
		text.ClipBytes(typed, 200), q.Label(v))
	return d.askWith(act, note)
}

// refusedChoice is the tool error for a choice that merges from someone other than the user:
// what happened (nothing) and how the user gets to choose.
func (d *Driver) refusedChoice(err error) error {
	if !errors.Is(err, statemachine.ErrNotTheUsersChoice) {
		return err
	}
	p := d.mon.Pending()
	return errors.New(contract.Refusal(text.Error(err), p.Kind == statemachine.ActionExecute && p.Task == statemachine.TaskInterpretFreeform))
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Consent (docs/security.md, "Consent"): a choice that merges (merge, merge with administrator
// bypass, auto-merge, a merge-queue entry, trying a failed merge again) is taken only from the
// user. The machine refuses it from anyone else (statemachine.AnsweredBy); this file says whose
// an answer is, from the way it reached the server:
//
//   - through the host: the user's pick in a form the server sent (elicitation/create before
//     2026-07-28, an input request's response after, each bound to the open question by its seq,
//     the latter inside a sealed request state), or their own words there matched whole: the
//     user's (answeredByUser);
//   - the agent's user_chose for a question this process handed it because the host could not
//     show it (no form elicitation declared, the host refused or failed the form, a task that
//     cannot ask): the user's answer, relayed (relay, agentAnswer);
//   - the agent's user_chose for anything else (a question the host shows or can show, one the
//     user dismissed, one from before a restart, free text it was asked to interpret), and a
//     model's reading of the user's free text: nobody's consent. A classified choice that merges
//     is asked again through the host instead (confirmByUser).

// answeredByUser marks an answer the user gave in the host's prompt: the one way, besides a relay,
// to a merge. Every path that reads a form's answer comes through here (afterElicit).
func answeredByUser(in statemachine.Input) statemachine.Input { return in.From(statemachine.ByUser) }

// agentAnswer marks the agent's own user_chose: a relay when the open question is one this
// process handed the agent because the host could not show it to the user (or the client shows
// none), else the agent's own, which may choose anything but a merge.
func (d *driver) agentAnswer(in statemachine.Input) statemachine.Input {
	if in.Kind != statemachine.InputEvent || in.Event != statemachine.EventUserChose {
		return in
	}
	seq := in.QuestionSeq
	if seq == 0 {
		seq = openQuestionSeq(d.mon.position())
	}
	if !d.hostElicits() || d.mon.relayed(seq) {
		return in.From(statemachine.ByRelay)
	}
	return in
}

// openQuestionSeq is the seq of the question an answer goes to: the open one, or the one a
// free-text answer interrupted (its interpretation is the agent's task).
func openQuestionSeq(p statemachine.Position) int {
	switch {
	case p.Question != nil:
		return p.Question.Seq
	case p.Freeform != nil:
		return p.Freeform.Question.Seq
	}
	return 0
}

// hostElicits reports whether the client declared form elicitation (an empty capability means
// form, as before URL mode existed), whatever it did with a form in this call.
func (d *driver) hostElicits() bool {
	return formElicitation(clientCaps(d.ctx))
}

// taskAsksClient reports whether a call that runs as a 2025-11-25 MCP task can put a question to
// the user through the client: in the 2025-11-25 era it sends elicitation/create tied to its task
// (io.modelcontextprotocol/related-task); a 2026-07-28 client has no server-initiated requests, so
// such a task hands its questions to the agent, as a relay. (A task of the 2026-07-28 tasks
// extension asks inside the task through its input requests: tasks_ext.go.) This is the one place
// that decides it (tasks.go runs the tasks).
func taskAsksClient(ctx context.Context) bool {
	return !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
}

// tieToTask marks a form sent from inside a task as the task's (the 2025-11-25 tasks' related-task
// metadata), so the client shows it as the task's question.
func (d *driver) tieToTask(p *mcp.ElicitationParams) {
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
func (d *driver) confirmByUser(q elicitation.Question, v elicitation.Value, typed string) outcome {
	act := d.mon.pending()
	if act.Kind != statemachine.ActionAskUser || act.Question == nil || act.Question.Seq != q.Seq {
		return failure(fmt.Errorf("%w: that question is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState))
	}
	note := fmt.Sprintf("You wrote: %q. That reads as %q, which only your own pick can choose: pick it below to go ahead, or choose anything else.",
		text.ClipBytes(typed, 200), q.Label(v))
	return d.askWith(act, note)
}

// refusedChoice is the tool error for a choice that merges from someone other than the user:
// what happened (nothing) and how the user gets to choose.
func (d *driver) refusedChoice(err error) error {
	if !errors.Is(err, statemachine.ErrNotTheUsersChoice) {
		return err
	}
	if p := d.mon.pending(); p.Kind == statemachine.ActionExecute && p.Task == statemachine.TaskInterpretFreeform {
		return fmt.Errorf("refused, nothing changed: a choice that merges is taken only from the user's own pick in the host's prompt, "+
			"not from your reading of their words (%v). Send task_complete and the question goes back to them", text.Error(err))
	}
	return fmt.Errorf("refused, nothing changed: the host can show this question to the user itself, so a choice that merges is taken "+
		"only from their answer there (%v). Call pr_monitor_next_step with event=ready to show it to them again; "+
		"choices that do not merge you may relay with user_chose", text.Error(err))
}

// userOnly lists the choices of q only the user's own pick can make.
func userOnly(p statemachine.Position, q *elicitation.Question) []elicitation.Value {
	var out []elicitation.Value
	for _, c := range q.Choices {
		if p.NeedsUser(c.Value) {
			out = append(out, c.Value)
		}
	}
	return out
}

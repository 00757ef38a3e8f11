package statemachine

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// beginRecovery handles an event the current task does not expect (a post-push hook's ready, a
// wrong completion event). The flow is never wiped: the server re-reads the head first.
func (s *step) beginRecovery(ev Event, data EventData) (Action, error) {
	s.pos.Recovery = &RecoveryState{Event: ev, Data: data, Task: *s.pos.Task, Freeform: s.pos.Freeform,
		Unseen: ev == EventReady && s.in.TaskUnseen}
	s.pos.Freeform = nil
	if _, err := s.mustFireFirst(TRefineRecover, TCommentsRecover, TCIRecover, TConflictRecover, TReadyRecover, TStaleRecover); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerFetchHead,
		Describe: fmt.Sprintf("re-read the head: the agent sent %s during %s", ev, s.pos.Recovery.Task.Name)}), nil
}

// pushCompletion is the completion a pushed head implies for a task, when it is unambiguous.
func pushCompletion(t TaskName, f Flow) (Event, bool) {
	switch t {
	case TaskRefine, TaskApplyFix, TaskRebase, TaskInvestigateCIFailure:
		return EventPushCompleted, true
	case TaskAddressComment:
		return EventCommentAddressed, true
	case TaskInterpretFreeform:
		if f == FlowCI || f == FlowRefine || f == FlowConflict {
			return EventPushCompleted, true
		}
	}
	return "", false
}

// onHead settles a recovery once the head is re-read: a push that unambiguously completes the task
// completes it; anything else asks the user with choices that fit the flow.
func (s *step) onHead() (Action, error) {
	if s.pos.Server == nil || s.pos.Server.Kind != ServerFetchHead || s.pos.Recovery == nil {
		return Action{}, fmt.Errorf("%w: no head refresh was pending", ErrUnexpectedOutcome)
	}
	h, rec := *s.in.Head, s.pos.Recovery
	s.pos.Server, s.rec = nil, rec
	task := rec.Task
	if h.OK && h.SHA != "" {
		s.pos.Head = h.SHA
	}
	advanced := s.headAdvanced()
	if rec.Unseen && !advanced {
		return s.redeliver(task, rec.Freeform)
	}
	var reason string
	switch {
	case !h.OK:
		reason = withCause("I couldn't check whether a commit was pushed", h.Error)
	case task.HeadSnapshot == "" && task.Name.pushCapable():
		reason = "I have no record of the head when the task began."
	case advanced:
		if ev, ok := pushCompletion(task.Name, s.pos.Node.Flow()); ok {
			s.pos.Task, s.pos.Freeform, s.pos.Recovery = &task, rec.Freeform, nil
			return s.complete(ev, rec.Data)
		}
		reason = fmt.Sprintf("%s was pushed, but the task did not say whether the comment was addressed or answered.", text.ShortSHA(h.SHA))
	case task.Name.pushCapable():
		reason = fmt.Sprintf("The agent said %s, but no new commit was pushed.", rec.Event.Words())
	default:
		reason = fmt.Sprintf("The agent said %s, which does not finish %s.", rec.Event.Words(), task.Name.Words())
	}
	rec.Reason = reason
	if _, err := s.mustFireFirst(TRefineAskRecovery, TCommentsAskRecovery, TCIAskRecovery, TConflictAskRecovery,
		TReadyAskRecovery, TStaleAskRecovery); err != nil {
		return Action{}, err
	}
	return s.askRecovery()
}

func (s *step) askRecovery() (Action, error) {
	rec := s.pos.Recovery
	var values []elicitation.Value
	switch {
	case s.pos.Node.Flow() == FlowComments:
		if rec.Task.Name != TaskExplainComment {
			values = append(values, elicitation.TreatAsAddressed, elicitation.TreatAsReplied)
		}
		values = append(values, elicitation.Skip)
	case slices.Contains(rec.Task.Expected, EventPushCompleted) || rec.Task.Name == TaskInvestigateCIFailure:
		// Only where a push completes the task: never for, say, a freeform answer in the ready flow.
		values = append(values, elicitation.TreatAsPushed)
	}
	values = append(values, elicitation.BackToTask, elicitation.Resume, elicitation.Stop)
	question := fmt.Sprintf("While working on %s: %s\nIf the work is done, say how to count it; otherwise go back to the task, resume monitoring, or stop.", rec.Task.Name.Words(), rec.Reason)
	ctx := rec.Task.Emitted.Context
	return s.ask(elicitation.QRecovery, question, values, ctx)
}

// recoveryAnswer handles the recovery question's choices.
func (s *step) recoveryAnswer(v elicitation.Value) (Action, error) {
	rec := s.pos.Recovery
	s.rec = rec
	task := rec.Task
	restore := func() { s.pos.Task, s.pos.Freeform, s.pos.Recovery = &task, rec.Freeform, nil }
	switch v {
	case elicitation.TreatAsAddressed:
		// The kind is the user's choice, whatever the task stood for; the restored task is replaced
		// at once (a compose task for the reply, or the post).
		restore()
		return s.commentsCompleteAs(prstatus.ReplyAddressed, rec.Data)
	case elicitation.TreatAsReplied:
		// The user answered on GitHub themselves: post nothing, resolve nothing, move on.
		s.pos.Recovery = nil
		s.pos.Comments.mark(s.current().ID, handledReplied)
		return s.nextThread(TCommentsCountedReplied, "Counted as replied on GitHub.")
	case elicitation.TreatAsPushed:
		restore()
		return s.complete(EventPushCompleted, rec.Data)
	case elicitation.Skip:
		s.pos.Recovery = nil
		s.pos.Comments.mark(s.current().ID, handledSkipped)
		return s.nextThread(TCommentsSkip, "Skipped.")
	case elicitation.BackToTask:
		if err := s.returnTo(s.interruptedTaskNode(s.pos.Node.Flow())); err != nil {
			return Action{}, err
		}
		restore()
		act := task.Emitted
		act.Message = "Back to the task."
		return act, nil
	case elicitation.Resume:
		return s.acknowledge("Resuming monitoring; the interrupted task is dropped.")
	}
	return Action{}, fmt.Errorf("statemachine: recovery has no handler for %q (a bug)", v)
}

// headAdvanced: the re-read head is a new commit since the interrupted task began.
func (s *step) headAdvanced() bool {
	h := s.in.Head
	return s.rec != nil && h != nil && h.OK && h.SHA != "" && s.rec.Task.HeadSnapshot != "" && h.SHA != s.rec.Task.HeadSnapshot
}

// pushCompletes: the head advanced and a push unambiguously completes the interrupted task.
func (s *step) pushCompletes(f Flow) bool {
	if !s.headAdvanced() {
		return false
	}
	_, ok := pushCompletion(s.rec.Task.Name, f)
	return ok
}

// interruptedTaskNode is where flow f handed out the task the recovery interrupted.
func (s *step) interruptedTaskNode(f Flow) Node {
	if s.rec == nil {
		return ""
	}
	followUp := s.pos.Comments != nil && s.pos.Comments.Mode == ModeFollowUp
	return taskNode(f, s.rec.Task.Name, followUp)
}

package statemachine

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
)

// pending re-presents what the monitor currently waits on, changing nothing.
func (s *step) pending(msg string) Action {
	a := Action{Message: msg}
	switch s.pos.Node.State() {
	case StateStopped:
		a.Kind = ActionStop
		if msg == "" {
			a.Message = "The monitor is stopped."
		}
	case StateIdle, StatePolling:
		a.Kind = ActionPolling
	case StateAwaitingUser:
		if z := s.snoozed(); z != nil {
			a = s.snoozedAction(z, msg)
			break
		}
		q := *s.pos.Question
		a.Kind, a.Question, a.Context = ActionAskUser, &q, s.pos.QuestionContext
	default:
		if s.pos.Server != nil {
			req := *s.pos.Server
			a.Kind, a.Server = ActionServer, &req
		} else {
			a = s.pos.Task.Emitted
			if msg != "" {
				a.Message = msg
			}
		}
	}
	a.State, a.Node, a.Flow = s.pos.Node.State(), s.pos.Node, s.pos.Node.Flow()
	return a
}

// stop ends monitoring from anywhere.
func (s *step) stop(msg string) (Action, error) {
	if s.pos.Node != NodeStopped {
		if err := s.fire(TStop); err != nil {
			return Action{}, err
		}
	}
	s.clearFlow()
	return Action{Kind: ActionStop, Message: msg}, nil
}

func (s *step) polling(msg string, now bool) Action {
	return Action{Kind: ActionPolling, Message: msg, PollNow: now}
}

// ask opens a question at the current (awaiting_user) node.
func (s *step) ask(id elicitation.QuestionID, text string, values []elicitation.Value, ctx *TaskContext, picks ...elicitation.Choice) (Action, error) {
	if !slices.Contains(values, elicitation.Snooze) {
		values = append(values, elicitation.Snooze) // every question can be put off
	}
	q, err := elicitation.Ask(id, text, values, picks...)
	if err != nil {
		return Action{}, fmt.Errorf("statemachine: %w (a bug)", err)
	}
	s.pos.Seq++
	q.Seq = s.pos.Seq
	if ctx != nil {
		c := *ctx
		c.PR = s.prContext()
		ctx = &c
	}
	s.pos.Question, s.pos.QuestionContext, s.pos.Snooze = &q, ctx, nil
	s.pos.Task, s.pos.Server = nil, nil
	return Action{Kind: ActionAskUser, Question: &q, Context: ctx}, nil
}

// execute hands the agent a task at the current (executing_task) node. Every task snapshots the
// head it starts on, so recovery can tell whether it pushed; keepSnapshot carries the snapshot of
// the task that pushed instead (compose_reply).
func (s *step) execute(task TaskName, expected []Event, ctx TaskContext, keepSnapshot string) Action {
	snapshot := keepSnapshot
	if snapshot == "" {
		snapshot = s.pos.Head
	}
	ctx.PR = s.prContext()
	ctx.HeadSnapshot = snapshot
	act := Action{
		Kind:           ActionExecute,
		Task:           task,
		Instructions:   instructions(task, s.pos.Node.Flow(), expected),
		ExpectedEvents: expected,
		Context:        &ctx,
	}
	act.State, act.Node, act.Flow = s.pos.Node.State(), s.pos.Node, s.pos.Node.Flow()
	s.pos.Task = &Task{Name: task, Expected: expected, HeadSnapshot: snapshot, StartedAt: s.now, Emitted: act}
	s.pos.Question, s.pos.QuestionContext, s.pos.Server = nil, nil, nil
	return act
}

// server asks the caller to do GitHub work at the current (executing_task) node.
func (s *step) server(req ServerRequest) Action {
	s.pos.Server = &req
	s.pos.Task, s.pos.Question, s.pos.QuestionContext = nil, nil, nil
	r := req
	return Action{Kind: ActionServer, Server: &r}
}

// finish ends the current flow through the first of rows that fires from here (a flow may end
// from its task, its free-text interpretation or its recovery) and goes back to watching.
func (s *step) finish(msg string, rows ...Transition) (Action, error) {
	if _, err := s.mustFireFirst(rows...); err != nil {
		return Action{}, err
	}
	s.clearFlow()
	return s.polling(msg, true), nil
}

// acknowledge ends the flow at the user's word: its attention is not raised again until its key
// changes.
func (s *step) acknowledge(msg string) (Action, error) {
	s.pos.Memory.ack(s.pos.FlowKey)
	if err := s.fire(TAcknowledge); err != nil {
		return Action{}, err
	}
	s.clearFlow()
	return s.polling(msg, false), nil
}

func (s *step) clearFlow() {
	p := &s.pos
	p.Refine, p.Comments, p.CI, p.Conflict, p.Ready, p.Stale = nil, nil, nil, nil, nil, nil
	p.Freeform, p.Recovery, p.Question, p.QuestionContext = nil, nil, nil, nil
	p.Task, p.Server, p.Retry, p.FlowKey = nil, nil, nil, ""
}

func (s *step) prContext() PRContext {
	m := s.pos.Monitor
	return PRContext{Ref: m.Ref.String(), Title: Untrusted(m.Title), URL: m.URL, HeadRef: m.HeadRef, BaseRef: m.BaseRef, HeadSHA: s.pos.Head}
}

// then makes the move named row and hands out the task (or server action) built by fn.
func (s *step) then(row Transition, fn func() Action) (Action, error) {
	if err := s.fire(row); err != nil {
		return Action{}, err
	}
	return fn(), nil
}

// thenAsk makes the move named row and asks the question built by fn.
func (s *step) thenAsk(row Transition, fn func() (Action, error)) (Action, error) {
	if err := s.fire(row); err != nil {
		return Action{}, err
	}
	return fn()
}

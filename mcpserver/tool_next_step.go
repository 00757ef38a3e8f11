package mcpserver

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

func (s *Server) nextStepTool() (server.ServerTool, error) {
	output, err := outputSchema[ActionOutput](
		briefObject("properties/context", "The task's payload: the pull request and the threads, reviews, checks or logs in play; GitHub text in it is fenced as data."),
		briefObject("properties/question", "ask_user: {id, seq, question, choices: [{value, label}]}."),
	)
	if err != nil {
		return server.ServerTool{}, err
	}
	tool := mcp.NewTool("pr_monitor_next_step",
		mcp.WithDescription("Report what happened; get the one thing to do next. It blocks while the server watches the pull request "+
			"(with progress), asks the user when a choice is needed and does the GitHub work itself. "+
			"Send event=ready to start or go on; after execute, one of its expected_events with the data it names; "+
			"after ask_user, user_chose with the choice's value. Repeat until the action is stop or merged. "+
			"polling within ~90 s (per host; as an MCP task, when the PR needs you): call again with event=ready. "+
			"With monitor_id=all, each action names its PR; answer with all too."),
		mcp.WithInputSchema[NextStepInput](),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		output,
		mcp.WithTitleAnnotation("Next step for a monitored pull request"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return server.ServerTool{Tool: tool, Handler: s.handleNextStep}, nil
}

func (s *Server) handleNextStep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, release := s.taskContext(ctx, req)
	defer release()
	var in NextStepInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	if in.MonitorID == "all" {
		return s.handleNextAllCall(ctx, req, in)
	}
	m, ok, err := s.lookup(in.MonitorID)
	if err != nil {
		return toolError(fmt.Sprintf("monitor %q cannot be resumed: %s", in.MonitorID, oneLine(err))), nil
	}
	if !ok {
		return toolError(fmt.Sprintf("unknown monitor %q: call pr_monitor_start first", in.MonitorID)), nil
	}
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		st, err := s.seal.open(req.Params.RequestState)
		if err != nil {
			return toolError(err.Error()), nil
		}
		if st.Monitor != m.id {
			return toolError(fmt.Sprintf("%v: it belongs to another monitor", ErrBadRequestState)), nil
		}
		callCtx, done := m.begin(ctx)
		defer done()
		d := s.newDriver(callCtx, m, req, st.Rounds)
		defer d.close()
		return d.resume(st)
	}
	input, err := machineInput(in)
	if err != nil {
		return toolError(err.Error()), nil
	}
	if !(input.Kind == statemachine.InputEvent && input.Event == statemachine.EventReady) && m.servedByAll() {
		return s.answerFromAll(ctx, req, m, input)
	}
	callCtx, done := m.begin(ctx)
	defer done()
	d := s.newDriver(callCtx, m, req, 0)
	defer d.close()
	return d.run(input)
}

// machineInput validates the agent's arguments and turns them into a machine input.
func machineInput(in NextStepInput) (statemachine.Input, error) {
	ev := statemachine.Event(in.Event)
	if !ev.Valid() {
		return statemachine.Input{}, fmt.Errorf("unknown event %q; want one of %v", in.Event, statemachine.Events)
	}
	if ev == statemachine.EventUserChose && in.Choice == "" {
		return statemachine.Input{}, fmt.Errorf("user_chose needs choice: the value of one of the question's choices")
	}
	if ev != statemachine.EventUserChose && in.Choice != "" {
		return statemachine.Input{}, fmt.Errorf("choice goes with event=user_chose only, not %s", in.Event)
	}
	if ev != statemachine.EventUserChose && in.QuestionSeq != 0 {
		return statemachine.Input{}, fmt.Errorf("question_seq goes with event=user_chose only, not %s", in.Event)
	}
	if in.QuestionSeq < 0 {
		return statemachine.Input{}, fmt.Errorf("question_seq %d: a question's seq is positive", in.QuestionSeq)
	}
	var data statemachine.EventData
	if in.Data != nil {
		data = *in.Data
	}
	input := statemachine.EventInput(ev, elicitation.Value(in.Choice), data)
	input.QuestionSeq = in.QuestionSeq
	return input, nil
}

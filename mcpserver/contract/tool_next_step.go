package contract

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// ToolNextStep names the tool that reports what happened and returns the one thing to do next.
const ToolNextStep = "pr_monitor_next_step"

func nextStepTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolNextStep)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolNextStep,
		mcp.WithDescription("Report what happened; get the one thing to do next. It blocks while the server watches the pull request "+
			"(with progress), asks the user when a choice is needed and does the GitHub work itself. "+
			"Send event=ready to start or go on; after execute, one of its expected_events with the data it names; "+
			"after ask_user, user_chose with the choice's value. Repeat until the action is stop or merged. "+
			"polling within 50 s to 4 min (per host; as an MCP task, when the PR needs you): call again with event=ready. "+
			"With monitor_id=all, each action names its PR; answer with all too."),
		schemas,
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		mcp.WithTitleAnnotation("Next step for a monitored pull request"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, nil
}

// NextStepEvent validates the agent's arguments and turns them into a machine input.
func NextStepEvent(in NextStepInput) (statemachine.Input, error) {
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

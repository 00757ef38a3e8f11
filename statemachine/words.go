package statemachine

// Words renders a task for a person to read: "applying the recommendation", not
// "apply_recommendation". The name itself stays the protocol's value.
func (t TaskName) Words() string {
	switch t {
	case TaskRefine:
		return "the requested changes"
	case TaskAddressComment:
		return "addressing a review comment"
	case TaskApplyRecommendation:
		return "applying the recommendation"
	case TaskExplainComment:
		return "explaining a review comment"
	case TaskComposeReply:
		return "writing a reply"
	case TaskInvestigateCIFailure:
		return "investigating the failing checks"
	case TaskApplyFix:
		return "applying the fix for the checks"
	case TaskRebase:
		return "the rebase"
	case TaskInterpretFreeform:
		return "understanding your answer"
	}
	return "the task"
}

// Words renders an event the agent sent for a person to read: "that the comment was addressed",
// not "comment_addressed".
func (e Event) Words() string {
	switch e {
	case EventReady:
		return "that it is ready"
	case EventUserChose:
		return "a choice"
	case EventCommentAddressed:
		return "that the comment was addressed"
	case EventCommentReplied:
		return "that the comment was replied to"
	case EventInvestigationComplete:
		return "that the investigation is complete"
	case EventPushCompleted:
		return "that a push completed"
	case EventTaskComplete:
		return "that the task is complete"
	}
	return "an event"
}

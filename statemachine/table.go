package statemachine

//go:generate go run ../cmd/prmonitor fsm --markdown --out ../docs/state-machine.md

import (
	"sync"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Row is one move of the table: from any of From to To, on any of On, when every guard holds.
// Rows leaving one node on one input are tried in table order; the first whose guards hold fires.
type Row struct {
	Name   Transition
	From   []Node
	To     Node
	On     []Trigger
	Guards []Guard
}

func at(ns ...Node) []Node         { return ns }
func when(ts ...Trigger) []Trigger { return ts }
func is(gs ...Guard) []Guard       { return gs }
func none() []Guard                { return nil }

// Table is the single source of truth for how a monitor moves. Step makes every move by firing
// one of these rows through looplab/fsm (see fsm.go); the diagrams in docs/state-machine.md are
// drawn from it. The slice is shared: callers must not change it.
func Table() []Row { return table() }

var table = sync.OnceValue(func() []Row {
	var rows []Row
	for _, part := range tableParts() {
		rows = append(rows, part.rows...)
	}
	return rows
})

// tablePart is the rows of one flow (FlowNone: watching, stopping, the catch-up, and what every
// flow shares).
type tablePart struct {
	flow Flow
	rows []Row
}

func tableParts() []tablePart {
	parts := []tablePart{{FlowNone, watchingRows()}, {FlowRefine, refineRows()}, {FlowComments, commentRows()},
		{FlowCI, ciRows()}, {FlowConflict, conflictRows()}, {FlowReady, readyRows()}, {FlowStale, staleRows()}}
	for i := range parts {
		parts[i].rows = append(parts[i].rows, snoozeRows(parts[i].flow)...)
	}
	return parts
}

func watchingRows() []Row {
	notStopped := restingNodes()[:0:0]
	for _, n := range restingNodes() {
		if n != NodeStopped {
			notStopped = append(notStopped, n)
		}
	}
	acks := at(NodeRefineStalled, NodeRefineRecovery, NodeCommentsRecovery, NodeCIResults, NodeCICancelled, NodeCIRecovery,
		NodeCIActionFailed, NodeCIBaseFailing, NodeConflictAsk, NodeConflictRecovery, NodeReadyAsk, NodeReadyMergeRefused, NodeReadyRecovery,
		NodeReadyActionFailed, NodeReadyAskWhenReady, NodeReadyAskStacked, NodeReadyAutoMergeOff, NodeStaleAsk, NodeStaleRecovery, NodeStaleActionFailed)
	return []Row{
		{TStart, at(NodeIdle), NodePolling, when(onEvent(reports...)), none()},
		{TStartByPoll, at(NodeIdle), NodePolling, when(onPoll()), none()},
		{TStop, notStopped, NodeStopped, when(onStop(), onChoice(elicitation.Stop)), none()},
		{TPRMerged, at(NodePolling, NodeCIRerunDeferred), NodeStopped, when(onPoll()), is(GuardPRMerged)},
		{TPRClosed, at(NodePolling, NodeCIRerunDeferred), NodeStopped, when(onPoll()), is(GuardPRClosed)},
		{TCatchUpReRequestReview, at(NodePolling), NodeCatchUpRequestingReview, when(onPoll()), is(GuardReviewersAwaitReRequest)},
		{TCatchUpResolveBotThread, at(NodePolling), NodeCatchUpResolving, when(onPoll()), is(GuardBotThreadAnsweredByUs)},
		{TCatchUpResolveSettled, at(NodePolling), NodeCatchUpResolving, when(onPoll()), is(GuardThreadSettledByApproval)},
		{TCatchUpDone, at(NodeCatchUpRequestingReview, NodeCatchUpResolving), NodePolling, when(onOutcome()), none()},
		{TKeepWatching, at(NodePolling), NodePolling, when(onPoll()), is(GuardUnacknowledged)},
		{TNothingNew, at(NodePolling), NodePolling, when(onPoll()), none()},
		{TAcknowledge, acks, NodePolling, when(onChoice(elicitation.Resume, elicitation.HandleMyself, elicitation.TreatAsAnswered,
			elicitation.SkipReminder)), none()},
	}
}

func refineRows() []Row {
	cr := onPoll(prstatus.AttentionChangesRequested)
	back, pushed := onChoice(elicitation.BackToTask), onChoice(elicitation.TreatAsPushed)
	returns := onEvent(EventUserChose, EventTaskComplete)
	return []Row{
		{TRefineAskStalled, at(NodePolling), NodeRefineStalled, when(cr), is(GuardUnacknowledged, GuardRoundRefinedOrAtLimit)},
		{TRefineCoolingDown, at(NodePolling), NodePolling, when(cr), is(GuardUnacknowledged, GuardRefineCooldown)},
		{TRefineDispatch, at(NodePolling), NodeRefineWorking, when(cr), is(GuardUnacknowledged, GuardRoundDispatchable)},
		{TRefineAgain, at(NodeRefineStalled), NodeRefineWorking, when(onChoice(elicitation.RefineAgain)), none()},
		{TRefineDone, at(NodeRefineWorking), NodePolling, when(onEvent(EventPushCompleted, EventTaskComplete)), none()},

		{TRefineRecover, at(NodeRefineWorking, NodeRefineInterpreting), NodeRefineRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TRefineRedeliverWorking, at(NodeRefineRecovering), NodeRefineWorking, when(onHead()), is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere)},
		{TRefineRedeliverInterpreting, at(NodeRefineRecovering), NodeRefineInterpreting, when(onHead()), is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere)},
		{TRefineRecoveredByPush, at(NodeRefineRecovering), NodePolling, when(onHead()), is(GuardPushCompletesTask)},
		{TRefineAskRecovery, at(NodeRefineRecovering), NodeRefineRecovery, when(onHead()), is(GuardRecoveryNeedsUser)},
		{TRefineBackToWorking, at(NodeRefineRecovery), NodeRefineWorking, when(back), is(GuardInterruptedTaskHere)},
		{TRefineBackToInterpreting, at(NodeRefineRecovery), NodeRefineInterpreting, when(back), is(GuardInterruptedTaskHere)},
		{TRefineTreatedAsPushed, at(NodeRefineRecovery), NodePolling, when(pushed), none()},

		{TRefineInterpret, at(NodeRefineStalled, NodeRefineRecovery), NodeRefineInterpreting, when(onFreeform()), none()},
		{TRefineInterpretedPush, at(NodeRefineInterpreting), NodePolling, when(onEvent(EventPushCompleted)), none()},
		{TRefineReturnToStalled, at(NodeRefineInterpreting), NodeRefineStalled, when(returns), is(GuardInterruptedQuestionHere)},
		{TRefineReturnToRecovery, at(NodeRefineInterpreting), NodeRefineRecovery, when(returns), is(GuardInterruptedQuestionHere)},
	}
}

func commentRows() []Row {
	completed := when(onEvent(EventCommentAddressed, EventCommentReplied), onChoice(elicitation.TreatAsAddressed))
	completers := at(NodeCommentsAddressing, NodeCommentsFollowingUp, NodeCommentsApplying, NodeCommentsComposing,
		NodeCommentsInterpreting, NodeCommentsRecovery)
	tasks := at(NodeCommentsExplaining, NodeCommentsAddressing, NodeCommentsFollowingUp, NodeCommentsApplying,
		NodeCommentsComposing, NodeCommentsInterpreting)
	head, back := onHead(), onChoice(elicitation.BackToTask)
	redeliver, backTo := is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere), is(GuardInterruptedTaskHere)
	returns, here := onEvent(EventUserChose, EventTaskComplete), is(GuardInterruptedQuestionHere)
	const (
		at1   = NodeCommentsSingle
		multi = NodeCommentsMulti
		all   = NodeCommentsAddressAll
		expl  = NodeCommentsExplainAll
		next  = NodeCommentsNextThread
		fin   = NodeCommentsFinishing
	)
	return []Row{
		{TCommentsFollowUp, at(NodePolling), NodeCommentsFollowingUp, when(onPoll(prstatus.AttentionNewComments)), is(GuardUnacknowledged, GuardThreadsUnacknowledged, GuardRefinedRound)},
		{TCommentsExplainOne, at(NodePolling), NodeCommentsExplaining, when(onPoll(prstatus.AttentionNewComments, prstatus.AttentionReviewerReplied)),
			is(GuardUnacknowledged, GuardThreadsUnacknowledged, GuardOneThreadOrAReply)},
		{TCommentsAskMulti, at(NodePolling), multi, when(onPoll(prstatus.AttentionNewComments)), is(GuardUnacknowledged, GuardThreadsUnacknowledged, GuardSeveralThreads)},

		{TCommentsAddressAll, at(multi), all, when(onChoice(elicitation.AddressAll)), none()},
		{TCommentsExplainAll, at(multi), NodeCommentsExplaining, when(onChoice(elicitation.ExplainAll)), none()},
		{TCommentsAddressSpecific, at(multi), NodeCommentsPick, when(onChoice(elicitation.AddressSpecific)), none()},
		{TCommentsHandleMyself, at(multi, at1, NodeCommentsPick), NodeCommentsHandlingMyself, when(onChoice(elicitation.HandleMyself)), none()},
		{TCommentsPicked, at(NodeCommentsPick), NodeCommentsExplaining, when(onPick()), none()},
		{TCommentsContinue, at(NodeCommentsPickRemaining), NodeCommentsExplaining, when(onChoice(elicitation.Continue)), none()},
		{TCommentsExplainedOne, at(NodeCommentsExplaining), at1, when(onEvent(EventTaskComplete)), is(GuardExplainingOne)},
		{TCommentsExplainedInTurn, at(NodeCommentsExplaining), expl, when(onEvent(EventTaskComplete)), is(GuardExplainingAll)},
		{TCommentsApply, at(at1, expl), NodeCommentsApplying, when(onChoice(elicitation.ApplyRecommendation)), none()},
		{TCommentsAddress, at(at1, expl, all), NodeCommentsAddressing, when(onChoice(elicitation.Address)), none()},
		{TCommentsResolve, at(at1), NodeCommentsResolving, when(onChoice(elicitation.ResolveThread)), none()},
		{TCommentsCompose, completers, NodeCommentsComposing, completed, is(GuardNoReplyText)},
		{TCommentsPostReply, completers, NodeCommentsPostingReply, completed, is(GuardReplyTextGiven)},
		{TCommentsResolveAfterReply, at(NodeCommentsPostingReply), NodeCommentsResolving, when(onOutcome()), is(GuardActionSucceeded, GuardResolvesAfterReply)},
		{TCommentsAwaitReviewer, at(NodeCommentsPostingReply), next, when(onOutcome()), is(GuardActionSucceeded, GuardLeavesThreadOpen)},
		{TCommentsResolved, at(NodeCommentsResolving), next, when(onOutcome()), is(GuardActionSucceeded)},
		{TCommentsActionFailed, at(NodeCommentsPostingReply, NodeCommentsResolving), NodeCommentsActionFailed, when(onOutcome()), is(GuardActionFailed)},
		{TCommentsRetryReply, at(NodeCommentsActionFailed), NodeCommentsPostingReply, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},
		{TCommentsRetryResolve, at(NodeCommentsActionFailed), NodeCommentsResolving, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},
		{TCommentsSkip, at(at1, expl, all, NodeCommentsRecovery, NodeCommentsActionFailed), next, when(onChoice(elicitation.Skip)), none()},
		{TCommentsCountedReplied, at(NodeCommentsRecovery), next, when(onChoice(elicitation.TreatAsReplied)), none()},
		{TCommentsLeaveThread, at(NodeCommentsActionFailed), next, when(onChoice(elicitation.HandleMyself)), none()},

		{TCommentsNextInAddressAll, at(next), all, when(decided()), is(GuardAddressAllMore)},
		{TCommentsNextInExplainAll, at(next), NodeCommentsExplaining, when(decided()), is(GuardExplainAllMore)},
		{TCommentsNextFollowUp, at(next), NodeCommentsFollowingUp, when(decided()), is(GuardFollowUpMore)},
		{TCommentsOthersRemain, at(next), NodeCommentsPickRemaining, when(decided()), is(GuardPickedOthersRemain)},
		{TCommentsNoneLeft, at(next), fin, when(decided()), is(GuardNothingNext)},
		{TCommentsDone, at(all, expl, NodeCommentsPickRemaining), fin, when(onChoice(elicitation.Done)), none()},
		{TCommentsDoneHandling, at(NodeCommentsHandlingMyself), fin, when(onChoice(elicitation.DoneHandling)), none()},
		{TCommentsFinished, at(fin), NodePolling, when(decided()), is(GuardNoReReview)},
		{TCommentsAskReReview, at(fin), NodeCommentsRequestingReview, when(decided()), is(GuardReviewersAllAnswered)},
		{TCommentsReReviewAsked, at(NodeCommentsRequestingReview), NodePolling, when(onOutcome()), none()},

		{TCommentsRecover, tasks, NodeCommentsRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TCommentsRedeliverExplaining, at(NodeCommentsRecovering), NodeCommentsExplaining, when(head), redeliver},
		{TCommentsRedeliverAddressing, at(NodeCommentsRecovering), NodeCommentsAddressing, when(head), redeliver},
		{TCommentsRedeliverFollowingUp, at(NodeCommentsRecovering), NodeCommentsFollowingUp, when(head), redeliver},
		{TCommentsRedeliverApplying, at(NodeCommentsRecovering), NodeCommentsApplying, when(head), redeliver},
		{TCommentsRedeliverComposing, at(NodeCommentsRecovering), NodeCommentsComposing, when(head), redeliver},
		{TCommentsRedeliverInterpreting, at(NodeCommentsRecovering), NodeCommentsInterpreting, when(head), redeliver},
		{TCommentsRecoveredCompose, at(NodeCommentsRecovering), NodeCommentsComposing, when(head), is(GuardPushCompletesTask, GuardNoReplyText)},
		{TCommentsRecoveredReply, at(NodeCommentsRecovering), NodeCommentsPostingReply, when(head), is(GuardPushCompletesTask, GuardReplyTextGiven)},
		{TCommentsAskRecovery, at(NodeCommentsRecovering), NodeCommentsRecovery, when(head), is(GuardRecoveryNeedsUser)},
		{TCommentsBackToExplaining, at(NodeCommentsRecovery), NodeCommentsExplaining, when(back), backTo},
		{TCommentsBackToAddressing, at(NodeCommentsRecovery), NodeCommentsAddressing, when(back), backTo},
		{TCommentsBackToFollowingUp, at(NodeCommentsRecovery), NodeCommentsFollowingUp, when(back), backTo},
		{TCommentsBackToApplying, at(NodeCommentsRecovery), NodeCommentsApplying, when(back), backTo},
		{TCommentsBackToComposing, at(NodeCommentsRecovery), NodeCommentsComposing, when(back), backTo},
		{TCommentsBackToInterpreting, at(NodeCommentsRecovery), NodeCommentsInterpreting, when(back), backTo},

		{TCommentsInterpret, at(at1, multi, all, expl, NodeCommentsPick, NodeCommentsPickRemaining, NodeCommentsHandlingMyself,
			NodeCommentsRecovery, NodeCommentsActionFailed), NodeCommentsInterpreting, when(onFreeform()), none()},
		{TCommentsReturnToSingle, at(NodeCommentsInterpreting), at1, when(returns), here},
		{TCommentsReturnToMulti, at(NodeCommentsInterpreting), multi, when(returns), here},
		{TCommentsReturnToAddressAll, at(NodeCommentsInterpreting), all, when(returns), here},
		{TCommentsReturnToExplainAll, at(NodeCommentsInterpreting), expl, when(returns), here},
		{TCommentsReturnToPick, at(NodeCommentsInterpreting), NodeCommentsPick, when(returns), here},
		{TCommentsReturnToPickRemaining, at(NodeCommentsInterpreting), NodeCommentsPickRemaining, when(returns), here},
		{TCommentsReturnToHandling, at(NodeCommentsInterpreting), NodeCommentsHandlingMyself, when(returns), here},
		{TCommentsReturnToRecovery, at(NodeCommentsInterpreting), NodeCommentsRecovery, when(returns), here},
		{TCommentsReturnToActionFailed, at(NodeCommentsInterpreting), NodeCommentsActionFailed, when(returns), here},
	}
}

func ciRows() []Row {
	head, back, pushed := onHead(), onChoice(elicitation.BackToTask), onChoice(elicitation.TreatAsPushed)
	redeliver, backTo := is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere), is(GuardInterruptedTaskHere)
	returns, here := onEvent(EventUserChose, EventTaskComplete), is(GuardInterruptedQuestionHere)
	return []Row{
		{TCIRerunNotShownYet, at(NodePolling), NodePolling, when(onPoll(prstatus.AttentionCIFailed, prstatus.AttentionCICancelled)),
			is(GuardUnacknowledged, GuardRerunNotShownYet)},
		{TCIWaitingForBase, at(NodePolling), NodePolling, when(onPoll(prstatus.AttentionCIFailed)),
			is(GuardUnacknowledged, GuardFailingOnBase, GuardWaitingForBase)},
		{TCIAskBaseFailing, at(NodePolling), NodeCIBaseFailing, when(onPoll(prstatus.AttentionCIFailed)),
			is(GuardUnacknowledged, GuardFailingOnBase, GuardBaseNotWaitedFor)},
		{TCIWaitForBase, at(NodeCIBaseFailing), NodePolling, when(onChoice(elicitation.WaitForBase)), none()},
		{TCILookAnywayFetchLogs, at(NodeCIBaseFailing), NodeCIFetchingLogs, when(onChoice(elicitation.LookAnyway)), is(GuardFailedJobsHaveLog)},
		{TCILookAnywayInvestigate, at(NodeCIBaseFailing), NodeCIInvestigating, when(onChoice(elicitation.LookAnyway)), is(GuardFailedJobsNoLog)},
		{TCIFetchLogs, at(NodePolling), NodeCIFetchingLogs, when(onPoll(prstatus.AttentionCIFailed)), is(GuardUnacknowledged, GuardActionsJobsFailed)},
		{TCIInvestigate, at(NodePolling), NodeCIInvestigating, when(onPoll(prstatus.AttentionCIFailed)), is(GuardUnacknowledged, GuardNoActionsJobs)},
		{TCIAskCancelled, at(NodePolling), NodeCICancelled, when(onPoll(prstatus.AttentionCICancelled)), is(GuardUnacknowledged)},
		{TCIFlakyRerun, at(NodeCIFetchingLogs), NodeCIRerunning, when(onOutcome()), is(GuardFlakyRerun)},
		{TCILogsFetched, at(NodeCIFetchingLogs), NodeCIInvestigating, when(onOutcome()), none()},
		{TCIAskResults, at(NodeCIInvestigating), NodeCIResults, when(onEvent(EventInvestigationComplete)), none()},
		{TCIApplyFix, at(NodeCIResults), NodeCIApplyingFix, when(onChoice(elicitation.ApplyFix)), none()},
		{TCIFixPushed, at(NodeCIApplyingFix), NodePolling, when(onEvent(EventPushCompleted)), none()},
		{TCIDeferRerun, at(NodeCIResults, NodeCICancelled), NodeCIRerunDeferred, when(onChoice(elicitation.RerunFailed, elicitation.RerunAll)), none()},
		{TCIRerunWaits, at(NodeCIRerunDeferred), NodeCIRerunDeferred, when(onPoll()), is(GuardChecksInFlight)},
		{TCIRerunDropped, at(NodeCIRerunDeferred), NodePolling, when(onPoll()), is(GuardRerunMoot)},
		{TCIRerunNow, at(NodeCIRerunDeferred), NodeCIRerunning, when(onPoll()), is(GuardRerunDue)},
		{TCIRerunStarted, at(NodeCIRerunning), NodePolling, when(onOutcome()), is(GuardActionSucceeded)},
		{TCIRerunFailed, at(NodeCIRerunning), NodeCIActionFailed, when(onOutcome()), is(GuardActionFailed)},
		{TCIRetryRerun, at(NodeCIActionFailed), NodeCIRerunning, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},

		{TCIRecover, at(NodeCIInvestigating, NodeCIApplyingFix, NodeCIInterpreting), NodeCIRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TCIRedeliverInvestigating, at(NodeCIRecovering), NodeCIInvestigating, when(head), redeliver},
		{TCIRedeliverApplyingFix, at(NodeCIRecovering), NodeCIApplyingFix, when(head), redeliver},
		{TCIRedeliverInterpreting, at(NodeCIRecovering), NodeCIInterpreting, when(head), redeliver},
		{TCIRecoveredByPush, at(NodeCIRecovering), NodePolling, when(head), is(GuardPushCompletesTask)},
		{TCIAskRecovery, at(NodeCIRecovering), NodeCIRecovery, when(head), is(GuardRecoveryNeedsUser)},
		{TCIBackToInvestigating, at(NodeCIRecovery), NodeCIInvestigating, when(back), backTo},
		{TCIBackToApplyingFix, at(NodeCIRecovery), NodeCIApplyingFix, when(back), backTo},
		{TCIBackToInterpreting, at(NodeCIRecovery), NodeCIInterpreting, when(back), backTo},
		{TCITreatedAsPushed, at(NodeCIRecovery), NodePolling, when(pushed), none()},

		{TCIInterpret, at(NodeCIResults, NodeCICancelled, NodeCIRecovery, NodeCIActionFailed, NodeCIBaseFailing), NodeCIInterpreting, when(onFreeform()), none()},
		{TCIInterpretedPush, at(NodeCIInterpreting), NodePolling, when(onEvent(EventPushCompleted)), none()},
		{TCIReturnToResults, at(NodeCIInterpreting), NodeCIResults, when(returns), here},
		{TCIReturnToCancelled, at(NodeCIInterpreting), NodeCICancelled, when(returns), here},
		{TCIReturnToRecovery, at(NodeCIInterpreting), NodeCIRecovery, when(returns), here},
		{TCIReturnToActionFailed, at(NodeCIInterpreting), NodeCIActionFailed, when(returns), here},
		{TCIReturnToBaseFailing, at(NodeCIInterpreting), NodeCIBaseFailing, when(returns), here},
	}
}

func conflictRows() []Row {
	head, back := onHead(), onChoice(elicitation.BackToTask)
	redeliver, backTo := is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere), is(GuardInterruptedTaskHere)
	returns, here := onEvent(EventUserChose, EventTaskComplete), is(GuardInterruptedQuestionHere)
	return []Row{
		{TConflictStackRetargeted, at(NodePolling), NodeConflictRebasing, when(onPoll()), is(GuardStackRetargeted)},
		{TConflictAsk, at(NodePolling), NodeConflictAsk, when(onPoll(prstatus.AttentionMergeConflict)), is(GuardUnacknowledged)},
		{TConflictRebase, at(NodeConflictAsk), NodeConflictRebasing, when(onChoice(elicitation.Rebase)), none()},
		{TConflictRebased, at(NodeConflictRebasing), NodePolling, when(onEvent(EventPushCompleted)), none()},

		{TConflictRecover, at(NodeConflictRebasing, NodeConflictInterpreting), NodeConflictRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TConflictRedeliverRebasing, at(NodeConflictRecovering), NodeConflictRebasing, when(head), redeliver},
		{TConflictRedeliverInterpreting, at(NodeConflictRecovering), NodeConflictInterpreting, when(head), redeliver},
		{TConflictRecoveredByPush, at(NodeConflictRecovering), NodePolling, when(head), is(GuardPushCompletesTask)},
		{TConflictAskRecovery, at(NodeConflictRecovering), NodeConflictRecovery, when(head), is(GuardRecoveryNeedsUser)},
		{TConflictBackToRebasing, at(NodeConflictRecovery), NodeConflictRebasing, when(back), backTo},
		{TConflictBackToInterpreting, at(NodeConflictRecovery), NodeConflictInterpreting, when(back), backTo},
		{TConflictTreatedAsPushed, at(NodeConflictRecovery), NodePolling, when(onChoice(elicitation.TreatAsPushed)), none()},

		{TConflictInterpret, at(NodeConflictAsk, NodeConflictRecovery), NodeConflictInterpreting, when(onFreeform()), none()},
		{TConflictInterpretedPush, at(NodeConflictInterpreting), NodePolling, when(onEvent(EventPushCompleted)), none()},
		{TConflictReturnToAsk, at(NodeConflictInterpreting), NodeConflictAsk, when(returns), here},
		{TConflictReturnToRecovery, at(NodeConflictInterpreting), NodeConflictRecovery, when(returns), here},
	}
}

func readyRows() []Row {
	asks := at(NodeReadyAsk, NodeReadyMergeRefused, NodeReadyAskStacked)
	returns, here := onEvent(EventUserChose, EventTaskComplete), is(GuardInterruptedQuestionHere)
	merged := onOutcome()
	return []Row{
		{TReadyWaitsForLower, at(NodePolling), NodePolling, when(onPoll(prstatus.AttentionReadyToMerge)), is(GuardUnacknowledged, GuardStacked, GuardLowerWaitedFor)},
		{TReadyAskStacked, at(NodePolling), NodeReadyAskStacked, when(onPoll(prstatus.AttentionReadyToMerge)),
			is(GuardUnacknowledged, GuardApprovalsBeyondWait, GuardStacked, GuardLowerNotWaitedFor)},
		{TReadyWaitForLower, at(NodeReadyAskStacked), NodePolling, when(onChoice(elicitation.WaitForLower)), none()},
		{TReadyAsk, at(NodePolling), NodeReadyAsk, when(onPoll(prstatus.AttentionReadyToMerge)), is(GuardUnacknowledged, GuardApprovalsBeyondWait)},
		{TReadySuperseded, asks, NodePolling, when(onPoll()), is(GuardReadyOfferGone)},
		{TReadyMerge, asks, NodeReadyMerging, when(onChoice(elicitation.Merge, elicitation.MergeAdmin)), none()},
		{TReadyWaitForApprover, asks, NodePolling, when(onChoice(elicitation.WaitForApprover)), none()},
		{TReadyQueued, at(NodeReadyMerging), NodePolling, when(merged), is(GuardActionSucceeded, GuardQueued)},
		{TReadyMerged, at(NodeReadyMerging), NodeStopped, when(merged), is(GuardActionSucceeded)},
		{TReadyChangedAskAgain, at(NodeReadyMerging), NodeReadyAsk, when(merged), is(GuardPRChangedStillOpen)},
		{TReadyChangedAndEnded, at(NodeReadyMerging), NodePolling, when(merged), is(GuardPRChangedAndEnded)},
		{TReadyHeadMoved, at(NodeReadyMerging), NodePolling, when(merged), is(GuardHeadMoved)},
		{TReadyMergeRefused, at(NodeReadyMerging), NodeReadyMergeRefused, when(merged), is(GuardMergeRefused)},
		{TReadyMergeFailed, at(NodeReadyMerging), NodeReadyActionFailed, when(merged), is(GuardMergeFailed)},
		{TReadyRetryMerge, at(NodeReadyActionFailed), NodeReadyMerging, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},

		{TReadyRecover, at(NodeReadyInterpreting), NodeReadyRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TReadyRedeliverInterpreting, at(NodeReadyRecovering), NodeReadyInterpreting, when(onHead()), is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere)},
		{TReadyAskRecovery, at(NodeReadyRecovering), NodeReadyRecovery, when(onHead()), is(GuardRecoveryNeedsUser)},
		{TReadyBackToInterpreting, at(NodeReadyRecovery), NodeReadyInterpreting, when(onChoice(elicitation.BackToTask)), is(GuardInterruptedTaskHere)},

		{TReadyInterpret, at(NodeReadyAsk, NodeReadyMergeRefused, NodeReadyRecovery, NodeReadyActionFailed, NodeReadyAskWhenReady, NodeReadyAutoMergeOff,
			NodeReadyAskStacked),
			NodeReadyInterpreting, when(onFreeform()), none()},
		{TReadyReturnToAsk, at(NodeReadyInterpreting), NodeReadyAsk, when(returns), here},
		{TReadyReturnToRefused, at(NodeReadyInterpreting), NodeReadyMergeRefused, when(returns), here},
		{TReadyReturnToRecovery, at(NodeReadyInterpreting), NodeReadyRecovery, when(returns), here},
		{TReadyReturnToActionFailed, at(NodeReadyInterpreting), NodeReadyActionFailed, when(returns), here},
		{TReadyReturnToAskStacked, at(NodeReadyInterpreting), NodeReadyAskStacked, when(returns), here},

		{TReadyUpdateBranch, asks, NodeReadyUpdatingBranch, when(onChoice(elicitation.UpdateBranch)), none()},
		{TReadyBranchUpdated, at(NodeReadyUpdatingBranch), NodePolling, when(onOutcome()), is(GuardActionSucceeded)},
		{TReadyUpdateHeadMoved, at(NodeReadyUpdatingBranch), NodePolling, when(onOutcome()), is(GuardHeadMoved)},
		{TReadyUpdateFailed, at(NodeReadyUpdatingBranch), NodeReadyActionFailed, when(onOutcome()), is(GuardActionFailed)},
		{TReadyRetryUpdate, at(NodeReadyActionFailed), NodeReadyUpdatingBranch, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},

		{TReadyAskWhenReady, at(NodePolling), NodeReadyAskWhenReady, when(onPoll(prstatus.AttentionMergeWhenReady)), is(GuardUnacknowledged)},
		{TReadyEnableAutoMerge, at(NodeReadyAskWhenReady, NodeReadyAsk), NodeReadyEnablingAutoMerge, when(onChoice(elicitation.AutoMerge)), none()},
		{TReadyAutoMergeOn, at(NodeReadyEnablingAutoMerge), NodePolling, when(onOutcome()), is(GuardActionSucceeded)},
		{TReadyAutoMergeNotOn, at(NodeReadyEnablingAutoMerge), NodePolling, when(onOutcome()), is(GuardNotAttempted)},
		{TReadyAutoMergeRefused, at(NodeReadyEnablingAutoMerge), NodeReadyMergeRefused, when(onOutcome()), is(GuardMergeRefused)},
		{TReadyAutoMergeFailed, at(NodeReadyEnablingAutoMerge), NodeReadyActionFailed, when(onOutcome()), is(GuardMergeFailed)},
		{TReadyRetryAutoMerge, at(NodeReadyActionFailed), NodeReadyEnablingAutoMerge, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},
		{TReadyDisableAutoMerge, at(NodePolling), NodeReadyDisablingAutoMerge, when(onPoll()), is(GuardAutoMergeOutdated)},
		{TReadyAutoMergeDropped, at(NodePolling), NodeReadyAutoMergeOff, when(onPoll()), is(GuardAutoMergeDropped)},
		{TReadyAutoMergeDisabled, at(NodeReadyDisablingAutoMerge), NodeReadyAutoMergeOff, when(onOutcome()), is(GuardActionSucceeded)},
		{TReadyDisableFailed, at(NodeReadyDisablingAutoMerge), NodeReadyActionFailed, when(onOutcome()), is(GuardActionFailed)},
		{TReadyRetryDisable, at(NodeReadyActionFailed), NodeReadyDisablingAutoMerge, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},
		{TReadyReturnToAskWhenReady, at(NodeReadyInterpreting), NodeReadyAskWhenReady, when(returns), here},
		{TReadyReturnToAutoMergeOff, at(NodeReadyInterpreting), NodeReadyAutoMergeOff, when(returns), here},
	}
}

func staleRows() []Row {
	returns, here := onEvent(EventUserChose, EventTaskComplete), is(GuardInterruptedQuestionHere)
	return []Row{
		{TStaleAsk, at(NodePolling), NodeStaleAsk, when(onPoll(prstatus.AttentionStaleApproval)), is(GuardUnacknowledged)},
		{TStaleRequestReview, at(NodeStaleAsk), NodeStaleRequestingReview, when(onChoice(elicitation.RequestReReview)), none()},
		{TStaleReviewRequested, at(NodeStaleRequestingReview), NodePolling, when(onOutcome()), is(GuardActionSucceeded)},
		{TStaleRequestFailed, at(NodeStaleRequestingReview), NodeStaleActionFailed, when(onOutcome()), is(GuardActionFailed)},
		{TStaleRetryRequest, at(NodeStaleActionFailed), NodeStaleRequestingReview, when(onChoice(elicitation.Retry)), is(GuardRetriedActionHere)},

		{TStaleRecover, at(NodeStaleInterpreting), NodeStaleRecovering, when(onEvent(reports...)), is(GuardUnexpectedEvent)},
		{TStaleRedeliverInterpreting, at(NodeStaleRecovering), NodeStaleInterpreting, when(onHead()), is(GuardUnseenAndUnpushed, GuardInterruptedTaskHere)},
		{TStaleAskRecovery, at(NodeStaleRecovering), NodeStaleRecovery, when(onHead()), is(GuardRecoveryNeedsUser)},
		{TStaleBackToInterpreting, at(NodeStaleRecovery), NodeStaleInterpreting, when(onChoice(elicitation.BackToTask)), is(GuardInterruptedTaskHere)},

		{TStaleInterpret, at(NodeStaleAsk, NodeStaleRecovery, NodeStaleActionFailed), NodeStaleInterpreting, when(onFreeform()), none()},
		{TStaleReturnToAsk, at(NodeStaleInterpreting), NodeStaleAsk, when(returns), here},
		{TStaleReturnToRecovery, at(NodeStaleInterpreting), NodeStaleRecovery, when(returns), here},
		{TStaleReturnToActionFailed, at(NodeStaleInterpreting), NodeStaleActionFailed, when(returns), here},
	}
}

package statemachine

import (
	"slices"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Guard names a condition a row needs besides its trigger. Guards are pure: they read the step's
// input, the position and the clock reading, and change nothing. looplab/fsm evaluates them in its
// before_event callback, for the row about to fire; a guard that does not hold cancels the move.
type Guard string

// Every guard of the table.
const (
	GuardUnacknowledged          Guard = "unacknowledged"
	GuardPRMerged                Guard = "pr_merged"
	GuardPRClosed                Guard = "pr_closed"
	GuardReviewersAwaitReRequest Guard = "reviewers_await_re_request"
	GuardBotThreadAnsweredByUs   Guard = "bot_thread_answered_by_us"
	GuardThreadSettledByApproval Guard = "thread_settled_by_approval"
	GuardUnexpectedEvent         Guard = "unexpected_event"
	GuardUnseenAndUnpushed       Guard = "unseen_and_unpushed"
	GuardPushCompletesTask       Guard = "push_completes_task"
	GuardRecoveryNeedsUser       Guard = "recovery_needs_user"
	GuardInterruptedTaskHere     Guard = "interrupted_task_here"
	GuardInterruptedQuestionHere Guard = "interrupted_question_here"
	GuardRetriedActionHere       Guard = "retried_action_here"
	GuardActionSucceeded         Guard = "action_succeeded"
	GuardActionFailed            Guard = "action_failed"

	GuardRoundRefinedOrAtLimit Guard = "round_refined_or_at_limit"
	GuardRefineCooldown        Guard = "refine_cooldown"
	GuardRoundDispatchable     Guard = "round_dispatchable"

	GuardThreadsUnacknowledged Guard = "threads_unacknowledged"
	GuardRefinedRound          Guard = "refined_round"
	GuardOneThreadOrAReply     Guard = "one_thread_or_a_reply"
	GuardSeveralThreads        Guard = "several_threads"
	GuardExplainingOne         Guard = "explaining_one"
	GuardExplainingAll         Guard = "explaining_all"
	GuardNoReplyText           Guard = "no_reply_text"
	GuardReplyTextGiven        Guard = "reply_text_given"
	GuardResolvesAfterReply    Guard = "resolves_after_reply"
	GuardLeavesThreadOpen      Guard = "leaves_thread_open"
	GuardAddressAllMore        Guard = "address_all_more"
	GuardExplainAllMore        Guard = "explain_all_more"
	GuardFollowUpMore          Guard = "follow_up_more"
	GuardPickedOthersRemain    Guard = "picked_others_remain"
	GuardNothingNext           Guard = "nothing_next"
	GuardNoReReview            Guard = "no_re_review"
	GuardReviewersAllAnswered  Guard = "reviewers_all_answered"

	GuardRerunNotShownYet  Guard = "rerun_not_shown_yet"
	GuardActionsJobsFailed Guard = "actions_jobs_failed"
	GuardNoActionsJobs     Guard = "no_actions_jobs_failed"
	GuardChecksInFlight    Guard = "checks_in_flight"
	GuardRerunMoot         Guard = "rerun_moot"
	GuardRerunDue          Guard = "rerun_due"
	GuardFailingOnBase     Guard = "failing_on_base"
	GuardFlakyRerun        Guard = "flaky_rerun"
	GuardStacked           Guard = "stacked"
	GuardLowerWaitedFor    Guard = "lower_waited_for"
	GuardLowerNotWaitedFor Guard = "lower_not_waited_for"
	GuardStackRetargeted   Guard = "stack_retargeted"
	GuardWaitingForBase    Guard = "waiting_for_base"
	GuardBaseNotWaitedFor  Guard = "base_not_waited_for"
	GuardFailedJobsHaveLog Guard = "failed_jobs_have_logs"
	GuardFailedJobsNoLog   Guard = "failed_jobs_have_no_logs"

	GuardApprovalsBeyondWait Guard = "approvals_beyond_wait"
	GuardReadyOfferGone      Guard = "ready_offer_gone"
	GuardPRChangedStillOpen  Guard = "pr_changed_still_open"
	GuardPRChangedAndEnded   Guard = "pr_changed_and_ended"
	GuardHeadMoved           Guard = "head_moved"
	GuardMergeRefused        Guard = "merge_refused"
	GuardMergeFailed         Guard = "merge_failed"
	GuardQueued              Guard = "queued"
	GuardNotAttempted        Guard = "not_attempted"
	GuardAutoMergeOutdated   Guard = "auto_merge_outdated"
	GuardAutoMergeDropped    Guard = "auto_merge_dropped"
)

// guardSpec is a guard's condition and the sentence the docs print for it.
type guardSpec struct {
	holds func(s *step, to Node) bool
	means string
}

// guards maps every guard to its condition. to is the row's target node (the history guards
// compare it with where the flow was interrupted).
var guards = map[Guard]guardSpec{
	GuardUnacknowledged: {func(s *step, _ Node) bool { return s.att != nil && !s.pos.Memory.acked(s.att.Key) },
		"the user has not acknowledged this attention's key (resume, handle it myself)"},
	GuardPRMerged: {func(s *step, _ Node) bool { return s.facts != nil && s.facts.State == prstatus.StateMerged },
		"the poll shows the pull request merged"},
	GuardPRClosed: {func(s *step, _ Node) bool { return s.facts != nil && s.facts.State == prstatus.StateClosed },
		"the poll shows the pull request closed without merge"},
	GuardReviewersAwaitReRequest: {func(s *step, _ Node) bool { return len(s.reRequestable()) > 0 },
		"Derive's reviews.awaiting_re_request names reviewers not yet asked on this head"},
	GuardBotThreadAnsweredByUs: {func(s *step, _ Node) bool { return s.answeredBotThread() != nil },
		"a bot's thread waits on its reviewer and Derive says answered_by_us, not yet tried for its newest comment"},
	GuardThreadSettledByApproval: {func(s *step, _ Node) bool { return s.settledThread() != nil },
		"a thread waiting for its reviewer was settled by their later approval (prstatus.SettledByApproval), not yet tried"},
	GuardUnexpectedEvent: {func(s *step, _ Node) bool { return s.pos.Task != nil && !s.pos.Task.expects(s.in.Event) },
		"the event is not one the task in progress expects"},
	GuardUnseenAndUnpushed: {func(s *step, _ Node) bool { return s.rec != nil && s.rec.Unseen && !s.headAdvanced() },
		"the ready may mean the task never reached the agent, and nothing was pushed"},
	GuardPushCompletesTask: {func(s *step, _ Node) bool { return s.pushCompletes(s.pos.Node.Flow()) },
		"a new head was pushed since the task began, and a push unambiguously completes the task"},
	GuardRecoveryNeedsUser: {func(s *step, _ Node) bool {
		return !(s.rec != nil && s.rec.Unseen && !s.headAdvanced()) && !s.pushCompletes(s.pos.Node.Flow())
	}, "neither of the above: the user says how to count the work"},
	GuardInterruptedTaskHere: {func(s *step, to Node) bool { return to == s.interruptedTaskNode(to.Flow()) },
		"the row leads back to the task the recovery interrupted"},
	GuardInterruptedQuestionHere: {func(s *step, to Node) bool {
		return s.ff != nil && to == questionNode(to.Flow(), s.ff.Question.ID)
	}, "the row leads back to the question the free-text answer interrupted"},
	GuardRetriedActionHere: {func(s *step, to Node) bool {
		return s.retry != nil && to == serverNode(to.Flow(), s.retry.Kind)
	}, "the row leads to the server action that failed"},
	GuardActionSucceeded: {func(s *step, _ Node) bool { return s.in.Outcome != nil && s.in.Outcome.OK },
		"GitHub did it"},
	GuardActionFailed: {func(s *step, _ Node) bool { return s.in.Outcome != nil && !s.in.Outcome.OK },
		"GitHub did not do it"},

	GuardRoundRefinedOrAtLimit: {func(s *step, _ Node) bool { return s.roundStalled() },
		"a refine of this review round already ended, or it was dispatched max_auto_refines times"},
	GuardRefineCooldown: {func(s *step, _ Node) bool { return !s.roundStalled() && s.roundCooling() },
		"the round was dispatched less than refine_cooldown ago"},
	GuardRoundDispatchable: {func(s *step, _ Node) bool { return !s.roundStalled() && !s.roundCooling() },
		"the round may be dispatched automatically now"},

	GuardThreadsUnacknowledged: {func(s *step, _ Node) bool { return len(s.unackedThreads()) > 0 },
		"some of the threads are not acknowledged in their current state (id@newest comment)"},
	GuardRefinedRound: {func(s *step, _ Node) bool { return s.followsUpRefine() },
		"new threads that all belong to a refine round the agent finished: it only owes a reply per thread"},
	GuardOneThreadOrAReply: {func(s *step, _ Node) bool {
		return !s.followsUpRefine() && (s.att.Kind == prstatus.AttentionReviewerReplied || len(s.unackedThreads()) == 1)
	}, "one thread, or a reviewer wrote again (replies are taken one at a time)"},
	GuardSeveralThreads: {func(s *step, _ Node) bool {
		return !s.followsUpRefine() && s.att.Kind != prstatus.AttentionReviewerReplied && len(s.unackedThreads()) > 1
	}, "several new threads"},
	GuardExplainingOne: {func(s *step, _ Node) bool { return s.pos.Comments.Mode != ModeExplainAll },
		"one thread is being explained"},
	GuardExplainingAll: {func(s *step, _ Node) bool { return s.pos.Comments.Mode == ModeExplainAll },
		"the threads are explained in turn (explain all)"},
	GuardNoReplyText: {func(s *step, _ Node) bool { return s.data.ReplyText == "" },
		"the completion carries no data.reply_text"},
	GuardReplyTextGiven: {func(s *step, _ Node) bool { return s.data.ReplyText != "" },
		"the completion carries data.reply_text"},
	GuardResolvesAfterReply: {func(s *step, _ Node) bool { return s.resolvesAfterReply() },
		"the thread was addressed, or its reviewer is a bot (bots never answer)"},
	GuardLeavesThreadOpen: {func(s *step, _ Node) bool { return !s.resolvesAfterReply() },
		"a reply to a human: the thread stays open, waiting for the reviewer"},
	GuardAddressAllMore: {func(s *step, _ Node) bool { return s.nextIn(ModeAddressAll) },
		"address all, and an unhandled thread follows"},
	GuardExplainAllMore: {func(s *step, _ Node) bool { return s.nextIn(ModeExplainAll) },
		"explain all, and an unhandled thread follows"},
	GuardFollowUpMore: {func(s *step, _ Node) bool { return s.nextIn(ModeFollowUp) },
		"a refine's follow-up, and an unhandled thread follows"},
	GuardPickedOthersRemain: {func(s *step, _ Node) bool { return s.pickedOthersRemain() },
		"the thread was picked from a list and others are unhandled"},
	GuardNothingNext: {func(s *step, _ Node) bool {
		return !s.nextIn(ModeAddressAll) && !s.nextIn(ModeExplainAll) && !s.nextIn(ModeFollowUp) && !s.pickedOthersRemain()
	}, "no thread of the flow is left to take"},
	GuardNoReReview: {func(s *step, _ Node) bool { return len(s.reReviewers()) == 0 || s.pos.Comments.Mode == ModeManual },
		"nobody to ask again, or the user handled the comments"},
	GuardReviewersAllAnswered: {func(s *step, _ Node) bool { return len(s.reReviewers()) > 0 && s.pos.Comments.Mode != ModeManual },
		"reviewers all of whose threads were answered, not asked on this head yet and not already requested"},

	GuardRerunNotShownYet: {func(s *step, _ Node) bool { return s.rerunNotShown() },
		"a requested re-run's jobs still show as failed on the same head, within rerun_shows_within"},
	GuardActionsJobsFailed: {func(s *step, _ Node) bool {
		return slices.ContainsFunc(s.facts.CI.FailedChecks, prstatus.CheckFact.IsActions)
	}, "a failing check is a GitHub Actions job (its log can be fetched)"},
	GuardNoActionsJobs: {func(s *step, _ Node) bool {
		return !slices.ContainsFunc(s.facts.CI.FailedChecks, prstatus.CheckFact.IsActions)
	}, "no failing check is a GitHub Actions job"},
	GuardChecksInFlight: {func(s *step, _ Node) bool { return s.deferredRerun() == rerunWaits },
		"same head, checks still in flight"},
	GuardRerunMoot: {func(s *step, _ Node) bool { return s.deferredRerun() == rerunMoot },
		"the head moved, the failures cleared, or nothing failing can be re-run from here"},
	GuardRerunDue: {func(s *step, _ Node) bool { return s.deferredRerun() == rerunDue },
		"same head, nothing in flight, failing Actions runs to re-run"},
	GuardStacked: {func(s *step, _ Node) bool { return s.facts.StackedOn != nil },
		"the pull request is stacked: its base branch is another open pull request's head"},
	GuardLowerWaitedFor: {func(s *step, _ Node) bool { return s.waitsForLower() },
		"the user chose to wait for the pull request it is stacked on to merge first"},
	GuardLowerNotWaitedFor: {func(s *step, _ Node) bool { return !s.waitsForLower() },
		"the user has not chosen to wait for the pull request it is stacked on"},
	GuardStackRetargeted: {func(s *step, _ Node) bool { return s.retargeted() },
		"the pull request it was stacked on is gone and GitHub retargeted this one to another base branch"},
	GuardFlakyRerun: {func(s *step, _ Node) bool { return s.flakyRerun() },
		"the logs show only failures known to be flaky in tests the PR does not touch, automatic re-runs are on, and none was made on this head"},
	GuardFailingOnBase: {func(s *step, _ Node) bool { return s.facts.CI.FailingOnBaseOnly() },
		"every failing check fails on the base branch's tip too (prstatus CIFacts.FailingOnBaseOnly)"},
	GuardWaitingForBase: {func(s *step, _ Node) bool { return s.pos.Memory.BaseWait != nil },
		"the user chose to wait for the base branch to go green"},
	GuardBaseNotWaitedFor: {func(s *step, _ Node) bool { return s.pos.Memory.BaseWait == nil },
		"the user has not chosen to wait for the base branch"},
	GuardFailedJobsHaveLog: {func(s *step, _ Node) bool { return anyActions(s.pos.CI.Failed) },
		"a check of the flow's failure is a GitHub Actions job (its log can be fetched)"},
	GuardFailedJobsNoLog: {func(s *step, _ Node) bool { return !anyActions(s.pos.CI.Failed) },
		"no check of the flow's failure is a GitHub Actions job"},

	GuardApprovalsBeyondWait: {func(s *step, _ Node) bool {
		w := s.pos.Memory.Wait
		return w == nil || len(s.facts.Reviews.Approvals) > w.Approvals
	}, "no \"wait for another approver\" on this head, or a new approval arrived since"},
	GuardReadyOfferGone: {func(s *step, _ Node) bool { return s.readyOfferGone() },
		"the poll shows news that takes the merge off the table (changes requested, CI failed or cancelled, a conflict, new commits, merged or closed)"},
	GuardPRChangedStillOpen: {func(s *step, _ Node) bool { return s.mergeOutcome() == mergeChangedOpen },
		"not merged: the pull request changed since the question and is still open"},
	GuardPRChangedAndEnded: {func(s *step, _ Node) bool { return s.mergeOutcome() == mergeChangedEnded },
		"not merged: the pull request changed and was merged or closed meanwhile"},
	GuardHeadMoved: {func(s *step, _ Node) bool { return s.mergeOutcome() == mergeHeadMoved },
		"not attempted: the head is no longer the one the user saw"},
	GuardMergeRefused: {func(s *step, _ Node) bool { return s.mergeOutcome() == mergeRefused },
		"GitHub refused the merge for a reason the user can act on"},
	GuardMergeFailed: {func(s *step, _ Node) bool { return s.mergeOutcome() == mergeFailed },
		"the merge failed otherwise"},
	GuardQueued: {func(s *step, _ Node) bool { return s.queued() },
		"GitHub added the pull request to its merge queue"},
	GuardNotAttempted: {func(s *step, _ Node) bool {
		r := s.mergeOutcome()
		return r == mergeChangedOpen || r == mergeChangedEnded || r == mergeHeadMoved
	}, "not attempted: the pull request changed since the question (its head, or what the user was shown)"},
	GuardAutoMergeOutdated: {func(s *step, _ Node) bool { return s.autoMergeNews() == autoMergeOutdated },
		"auto-merge the user turned on is still on, and the pull request shows something they were not shown"},
	GuardAutoMergeDropped: {func(s *step, _ Node) bool { return s.autoMergeNews() == autoMergeDropped },
		"auto-merge the user turned on is off on GitHub, and the pull request is not in a merge queue"},
}

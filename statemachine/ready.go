package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// NeedsUser reports whether choosing v for the open question (or the question a free-text answer
// interrupted) merges, or has GitHub merge later: merge, merge with administrator bypass, or a
// retry of a merge that failed. Step takes such a choice only from the user (AnsweredBy), and
// the MCP server asks again through the host rather than take it from a model's reading.
func (p Position) NeedsUser(v elicitation.Value) bool {
	q := p.Question
	if q == nil && p.Freeform != nil {
		q = &p.Freeform.Question
	}
	switch {
	case q == nil:
		return false
	case v == elicitation.Merge, v == elicitation.MergeAdmin, v == elicitation.AutoMerge:
		return true
	}
	return v == elicitation.Retry && q.ID == elicitation.QActionFailed && p.Retry != nil && merges(p.Retry.Kind)
}

// merges reports whether a server action merges the pull request (now or, by GitHub, later).
func merges(k ServerActionKind) bool {
	return k == ServerMerge || k == ServerEnqueue || k == ServerEnableAutoMerge
}

// readyMerging is the ready flow's merge step, and readyEnabling its auto-merge step: the only
// nodes that wait on a merge (their info lives here, with the one handler that may build a merge
// request). A merge-queue entry is a merge: GitHub merges it once the queue's checks pass.
var (
	readyMerging  = serving(FlowReady, ServerMerge, ServerEnqueue)
	readyEnabling = serving(FlowReady, ServerEnableAutoMerge)
)

// enterReady asks whether to merge an approved, green pull request. This question is the only way
// a merge can come about. handled is false when the attention is acknowledged or the user waits
// for another approval that has not come.
func (s *step) enterReady(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TReadyWaitsForLower, TReadyAskStacked, TReadyAsk)
	switch {
	case err != nil || row == "":
		return Action{}, false, err
	case row == TReadyWaitsForLower:
		return s.polling(fmt.Sprintf("Ready, but waiting for #%d to merge first (this pull request is stacked on it).", f.StackedOn.Number), false), true, nil
	case row == TReadyAskStacked:
		act, err := s.askReadyStacked(f, att)
		return act, true, err
	}
	act, err := s.askReady(f, att)
	return act, true, err
}

// supersedeReady drops the ready flow's open question when a poll shows news that takes the merge
// off the table (readyOfferGone): the user is not left a choice that no longer holds. The poll then
// goes on as a watching monitor's, so the news enters its own flow at once. ok is false when the
// question stands.
func (s *step) supersedeReady(f *prstatus.Facts) (act Action, ok bool, err error) {
	s.facts = f
	row, err := s.fireFirst(TReadySuperseded)
	if err != nil || row == "" {
		s.facts = nil
		return Action{}, false, err
	}
	s.clearFlow()
	act, err = s.onPoll()
	return act, true, err
}

// readyOfferGone: the ready question is open (not snoozed), the poll shows something the question
// did not (what the user was shown, Ready.Shown: a question asked again after a merge found news
// says so, and the user may merge over it), and its top attention outranks the merge, or the head
// moved from the one the question was about.
func (s *step) readyOfferGone() bool {
	f, r := s.facts, s.pos.Ready
	if f == nil || r == nil || s.pos.Question == nil || s.snoozed() != nil {
		return false
	}
	if r.Shown != nil && len(r.Shown.Changes(f)) == 0 && f.Attention.Kind != prstatus.AttentionMergeConflict {
		return false
	}
	switch f.Attention.Kind {
	case prstatus.AttentionMerged, prstatus.AttentionClosed, prstatus.AttentionChangesRequested, prstatus.AttentionMergeConflict,
		prstatus.AttentionCIFailed, prstatus.AttentionCICancelled:
		return true
	}
	return f.HeadSHA != "" && r.Head != "" && f.HeadSHA != r.Head
}

// setReady starts the ready flow on what the user is shown.
func (s *step) setReady(f *prstatus.Facts, att prstatus.Attention) {
	shown := prstatus.ViewForMerge(f)
	s.pos.Ready = &ReadyState{Head: f.HeadSHA, Approvers: slices.Clone(f.Reviews.Approvals), Shown: &shown, Behind: branchBehind(f),
		Queue: f.MergeQueueRequired}
	s.pos.FlowKey = att.Key
}

func (s *step) askReady(f *prstatus.Facts, att prstatus.Attention) (Action, error) {
	s.setReady(f, att)
	behind := s.pos.Ready.Behind
	question := fmt.Sprintf("%s is ready: %s", s.pos.Monitor.Ref, readyWords(f))
	var quoted []string
	if len(f.Reviews.Approvals) > 0 {
		quoted = append(quoted, "approved by: "+prstatus.JoinNames(f.Reviews.Approvals))
	}
	if _, settled := prstatus.SettledByApproval(f); len(settled) > 0 {
		// Resolved, by the server or by anyone: the approval came after our reply, so nothing on
		// them waits for the reviewer. Who resolved them is not said (it is not known here).
		question += ". The reviewer approved after our reply on " + text.Count(len(settled), "resolved thread", "resolved threads")
		quoted = append(quoted, "resolved, approved after our reply: "+describeSettled(settled))
	}
	values := []elicitation.Value{elicitation.Merge}
	if f.MergeQueueRequired {
		question += ". The base branch merges through a merge queue: merging adds it to the queue, and GitHub merges it once the queue's checks pass"
	}
	if f.AutoMergeOfferedOnReady() {
		question += ". GitHub holds the merge for now; with auto-merge it merges it by itself, at this head, once it lets it"
		values = append(values, elicitation.AutoMerge)
	}
	if behind {
		question += ". The branch is behind its base branch, and the repository requires it to be up to date before merging."
		values = append(values, elicitation.UpdateBranch)
	}
	values = append(values, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	if len(quoted) > 0 {
		question += ".\n" + quote(quoted...)
	}
	return s.ask(elicitation.QReadyToMerge, question, values, nil)
}

// readyWords is why the pull request is ready, in the server's own words: the reviewers, checks
// and threads that GitHub names are quoted after the question, not spliced into it.
func readyWords(f *prstatus.Facts) string {
	question := fmt.Sprintf("approved by %s on %s and CI is green (%d/%d checks passed)",
		text.Count(len(f.Reviews.Approvals), "reviewer", "reviewers"), text.ShortSHA(f.HeadSHA), f.CI.Passed, f.CI.Total)
	var warn []string
	if n := len(f.Threads.Waiting); n > 0 {
		warn = append(warn, text.Count(n, "thread waits", "threads wait")+" for a reviewer's reply (the repository may require resolved conversations)")
	}
	if n := len(f.Reviews.PendingRequests); n > 0 {
		warn = append(warn, "a review is still requested from "+text.Count(n, "reviewer", "reviewers"))
	}
	var others []string
	if n := len(f.Reviews.FromOthers); n > 0 {
		others = append(others, text.Count(n, "review", "reviews"))
	}
	if n := len(f.Threads.FromOthers); n > 0 {
		others = append(others, text.Count(n, "thread", "threads"))
	}
	if len(others) > 0 {
		warn = append(warn, prstatus.JoinNames(others)+" from someone who cannot review (shown, not acted on)")
	}
	if len(warn) > 0 {
		question += "; but " + strings.Join(warn, ", and ")
	}
	return question
}

// branchBehind reports whether updating the branch can help: GitHub's merge state is BEHIND (which
// it reports only when a branch protection requires branches to be up to date before merging) and
// the branch does not conflict with its base (a conflict needs a rebase, not an update).
func branchBehind(f *prstatus.Facts) bool {
	return f.MergeStateStatus == "BEHIND" && f.Mergeable != prstatus.MergeableConflict
}

// readyAnswer handles every choice of the ready flow's questions (ready, merge when ready, merge
// refused, auto-merge off). It is the one handler that may produce a merge, and only from the
// user's explicit merge or auto-merge choice.
func (s *step) readyAnswer(v elicitation.Value) (Action, error) {
	switch v {
	case elicitation.Merge, elicitation.MergeAdmin:
		return s.mergeRequest(v == elicitation.MergeAdmin)
	case elicitation.AutoMerge:
		return s.autoMergeRequest()
	case elicitation.UpdateBranch:
		return s.updateBranchRequest()
	case elicitation.WaitForLower:
		return s.waitForLower()
	case elicitation.WaitForApprover:
		s.pos.Memory.Wait = &WaitApprover{Head: s.pos.Ready.Head, Approvals: len(s.pos.Ready.Approvers)}
		return s.finish("Waiting for another approval before asking again.", TReadyWaitForApprover)
	case elicitation.Resume:
		switch s.pos.Question.ID {
		case elicitation.QMergeWhenReady:
			return s.acknowledge("Watching the checks; you will be asked when they pass.")
		case elicitation.QAutoMergeOff:
			return s.acknowledge("Auto-merge is off: GitHub will not merge the pull request by itself. Watching.")
		}
		return s.acknowledge("Resuming; this will not be asked again for this head and these approvals.")
	case elicitation.HandleMyself:
		if s.pos.Question.ID == elicitation.QAutoMergeOff {
			return s.acknowledge("Auto-merge is off: GitHub will not merge the pull request by itself. Leaving the merge to you.")
		}
		return s.acknowledge("Leaving the merge to you.")
	}
	return Action{}, fmt.Errorf("statemachine: ready flow has no handler for %q (a bug)", v)
}

// mergeRequest is the only place a merge request is built. It pins the head the user saw. Where the
// base branch merges through a merge queue, merging is the queue's entry.
func (s *step) mergeRequest(admin bool) (Action, error) {
	r := s.pos.Ready
	if _, err := s.mustFireFirst(TReadyMerge, TReadyRetryMerge); err != nil {
		return Action{}, err
	}
	if r.Queue && !admin {
		return s.server(ServerRequest{Kind: ServerEnqueue, ExpectedHeadSHA: r.Head, Shown: s.shown(),
			Describe: fmt.Sprintf("add %s at %s to the merge queue", s.pos.Monitor.Ref, text.ShortSHA(r.Head))}), nil
	}
	what := fmt.Sprintf("%s-merge %s at %s", s.cfg.MergeMethod, s.pos.Monitor.Ref, text.ShortSHA(r.Head))
	if admin {
		what += " with administrator bypass"
	}
	return s.server(ServerRequest{Kind: ServerMerge, MergeMethod: s.cfg.MergeMethod, ExpectedHeadSHA: r.Head, Admin: admin,
		Shown: s.shown(), Describe: what}), nil
}

// autoMergeRequest is the only place an auto-merge request is built: GitHub merges the pull
// request by itself once its requirements are met, pinned to the head the user saw.
func (s *step) autoMergeRequest() (Action, error) {
	r := s.pos.Ready
	if _, err := s.mustFireFirst(TReadyEnableAutoMerge, TReadyRetryAutoMerge); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerEnableAutoMerge, MergeMethod: s.cfg.MergeMethod, ExpectedHeadSHA: r.Head, Shown: s.shown(),
		Describe: fmt.Sprintf("turn on auto-merge (%s) for %s at %s", s.cfg.MergeMethod, s.pos.Monitor.Ref, text.ShortSHA(r.Head))}), nil
}

// shown is what the user was shown when asked; a position saved before views were kept shows the
// head only, so anything standing is news.
func (s *step) shown() *prstatus.MergeView {
	r := s.pos.Ready
	v := prstatus.MergeView{Head: r.Head}
	if r.Shown != nil {
		v = *r.Shown
	}
	return &v
}

// queued: the outcome is GitHub taking the pull request into its merge queue.
func (s *step) queued() bool {
	return s.in.Outcome != nil && s.in.Outcome.OK && s.in.Outcome.Kind == ServerEnqueue
}

// updateBranchRequest asks the server to bring the branch up to date with its base, pinned to the
// head the user saw. It never merges the pull request.
func (s *step) updateBranchRequest() (Action, error) {
	r := s.pos.Ready
	if _, err := s.mustFireFirst(TReadyUpdateBranch); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerUpdateBranch, ExpectedHeadSHA: r.Head,
		Describe: fmt.Sprintf("update the branch of %s at %s with its base branch", s.pos.Monitor.Ref, text.ShortSHA(r.Head))}), nil
}

// retryReady tries a failed ready-flow action again: a branch update or turning auto-merge off is
// sent again as it was; a merge or an auto-merge is built afresh by its one builder.
func (s *step) retryReady(req ServerRequest) (Action, error) {
	switch req.Kind {
	case ServerUpdateBranch, ServerDisableAutoMerge:
		if err := s.returnTo(serverNode(FlowReady, req.Kind)); err != nil {
			return Action{}, err
		}
		return s.server(req), nil
	case ServerEnableAutoMerge:
		return s.autoMergeRequest()
	}
	return s.mergeRequest(req.Admin)
}

// updateOutcome reports the branch update. Done, the question's situation is acknowledged (GitHub
// updates the branch in the background: the next poll may still show the old head) and the monitor
// watches the new head while its checks run again.
func (s *step) updateOutcome(req ServerRequest, o Outcome) (Action, error) {
	row, err := s.mustFireFirst(TReadyBranchUpdated, TReadyUpdateHeadMoved, TReadyUpdateFailed)
	if err != nil {
		return Action{}, err
	}
	switch row {
	case TReadyBranchUpdated:
		s.pos.Memory.ack(s.pos.FlowKey)
		s.clearFlow()
		return s.polling("GitHub is updating the branch with its base branch; watching the new head while the checks run again.", true), nil
	case TReadyUpdateHeadMoved:
		s.clearFlow()
		return s.polling("The head moved since you chose to update the branch; nothing was changed. Watching the new head.", true), nil
	}
	return s.askFailed(req, o, false)
}

// readyOutcome reports the merge (or queue entry), the branch update, or auto-merge turned on or off.
func (s *step) readyOutcome(req ServerRequest, o Outcome) (Action, error) {
	switch req.Kind {
	case ServerUpdateBranch:
		return s.updateOutcome(req, o)
	case ServerEnableAutoMerge:
		return s.autoMergeOutcome(req, o)
	case ServerDisableAutoMerge:
		return s.disableOutcome(req, o)
	}
	row, err := s.mustFireFirst(TReadyQueued, TReadyMerged, TReadyChangedAskAgain, TReadyChangedAndEnded, TReadyHeadMoved,
		TReadyMergeRefused, TReadyMergeFailed)
	if err != nil {
		return Action{}, err
	}
	switch row {
	case TReadyQueued:
		s.clearFlow()
		return s.polling(fmt.Sprintf("Added %s to the merge queue: GitHub merges it once the queue's checks pass. Watching until it is merged.",
			s.pos.Monitor.Ref), true), nil
	case TReadyMerged:
		s.clearFlow()
		msg := fmt.Sprintf("%s merged.", s.pos.Monitor.Ref)
		if o.SHA != "" {
			msg = fmt.Sprintf("%s merged as %s.", s.pos.Monitor.Ref, text.ShortSHA(o.SHA))
		}
		return Action{Kind: ActionMerged, Message: msg}, nil
	case TReadyChangedAskAgain:
		return s.askAgain(o)
	case TReadyChangedAndEnded: // merged or closed meanwhile: the next poll says so
		s.clearFlow()
		return s.polling("Not merged: "+strings.Join(o.Changed, "; ")+".", true), nil
	case TReadyHeadMoved:
		s.clearFlow()
		return s.polling("The head moved since you chose to merge; nothing was merged. Watching the new head.", true), nil
	case TReadyMergeRefused:
		return s.askRefused(req, o, "GitHub refused the merge")
	}
	return s.askFailed(req, o, false)
}

// askRefused asks what to do about a merge, queue entry or auto-merge GitHub refused for a reason
// the user can act on: merging now (after an auto-merge GitHub refused, say as the pull request
// could merge at once), with administrator bypass where configured, updating a branch behind its
// base, or waiting.
func (s *step) askRefused(req ServerRequest, o Outcome, sentence string) (Action, error) {
	s.pos.Ready.Refusal = o.Error
	values := []elicitation.Value{}
	if req.Kind == ServerEnableAutoMerge {
		values = append(values, elicitation.Merge)
	}
	if s.cfg.AllowAdminMerge && !req.Admin {
		values = append(values, elicitation.MergeAdmin)
	}
	if s.pos.Ready.Behind {
		values = append(values, elicitation.UpdateBranch)
	}
	values = append(values, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	return s.ask(elicitation.QMergeRefused, withCause(sentence, o.Error), values, nil)
}

// mergeResult is what a merge outcome means.
type mergeResult int

const (
	mergeDone         mergeResult = iota
	mergeChangedOpen              // not merged: the PR changed since the question and is still open
	mergeChangedEnded             // not merged: the PR changed and was merged or closed meanwhile
	mergeHeadMoved                // not attempted: the head moved
	mergeRefused                  // GitHub refused it for a reason the user can act on
	mergeFailed                   // anything else
)

func (s *step) mergeOutcome() mergeResult {
	o := s.in.Outcome
	switch {
	case o == nil:
		return mergeFailed
	case o.OK:
		return mergeDone
	case len(o.Changed) > 0 && o.Shown != nil:
		if o.Shown.State != "" && o.Shown.State != prstatus.StateOpen {
			return mergeChangedEnded
		}
		return mergeChangedOpen
	case o.HeadMoved:
		return mergeHeadMoved
	case o.Refused:
		return mergeRefused
	}
	return mergeFailed
}

// askAgain asks the ready question again when the pull request changed between the question and
// the user's merge choice: nothing was merged, and the user is told what changed.
func (s *step) askAgain(o Outcome) (Action, error) {
	r := s.pos.Ready
	r.Head, r.Approvers, r.Refusal, r.Shown, r.Behind = o.Shown.Head, slices.Clone(o.Shown.Approvers), "", o.Shown, false
	s.pos.Head = o.Shown.Head
	question := fmt.Sprintf("Not merged: the pull request changed since you were asked (below, as GitHub reports it). Merge %s at %s anyway?\n%s",
		s.pos.Monitor.Ref, text.ShortSHA(r.Head), quote(o.Changed...))
	return s.ask(elicitation.QReadyToMerge, question, []elicitation.Value{elicitation.Merge, elicitation.WaitForApprover,
		elicitation.Resume, elicitation.HandleMyself, elicitation.Stop}, nil)
}

// describeSettled names threads an approval settled, for a fenced quote: "bob on a.go:3, carol on
// b.go and 2 more".
func describeSettled(ts []prstatus.ThreadFact) string {
	var names []string
	for i, t := range ts {
		if i == 3 {
			names = append(names, fmt.Sprintf("%d more", len(ts)-3))
			break
		}
		names = append(names, t.Reviewer+" on "+t.Where())
	}
	return prstatus.JoinNames(names)
}

package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// onPoll turns a fresh poll result into at most one flow entry. Only a watching monitor (idle,
// polling, or waiting to re-run CI) takes polls; anywhere else a poll changes nothing.
func (s *step) onPoll() (Action, error) {
	f := s.in.Facts
	if st := s.pos.Node.State(); st != StatePolling && st != StateIdle {
		if act, ok, err := s.supersedeReady(f); ok || err != nil {
			return act, err
		}
		return s.pending(s.wakeOnNews(f)), nil
	}
	s.facts = f
	s.observe(f)
	s.recordVerdicts(f)
	if s.pos.Node == NodeIdle {
		if err := s.fire(TStartByPoll); err != nil {
			return Action{}, err
		}
	}
	if s.pos.Node == NodeCIRerunDeferred {
		if act, handled, err := s.ciWaitPoll(f); handled || err != nil {
			return act, err
		}
	}
	if row, err := s.fireFirst(TPRMerged, TPRClosed); err != nil || row != "" {
		return s.ended(row), err
	}
	if act, ok, err := s.watchAutoMerge(); ok || err != nil {
		return act, err
	}
	if act, ok, err := s.catchUp(); ok || err != nil {
		return act, err
	}
	if act, ok, err := s.stackRetargeted(f); ok || err != nil {
		return act, err
	}
	for _, att := range f.Attentions {
		s.att = &att
		act, handled, err := s.enter(f, att)
		if handled || err != nil {
			return act, err
		}
	}
	s.att = nil
	if err := s.fire(TNothingNew); err != nil {
		return Action{}, err
	}
	return s.polling(waitingFor(f), false), nil
}

// observe records what the poll says about the PR's identity and head.
func (s *step) observe(f *prstatus.Facts) {
	m := &s.pos.Monitor
	m.Title, m.URL, m.HeadRef, m.BaseRef = f.Title, f.URL, f.HeadRef, f.BaseRef
	m.Author, m.Viewer = f.Author, f.Viewer
	m.PendingReviews = slices.Clone(f.Reviews.PendingRequests)
	if w := s.pos.Memory.Wait; w != nil && w.Head != f.HeadSHA {
		s.pos.Memory.Wait = nil
	}
	s.pos.Head = f.HeadSHA
	s.forgetBaseWait(f)
}

// ended stops on a merged or closed PR (row is pr_merged or pr_closed, already made).
func (s *step) ended(row Transition) Action {
	s.clearFlow()
	if row == TPRMerged {
		return Action{Kind: ActionMerged, Message: fmt.Sprintf("%s was merged.", s.pos.Monitor.Ref)}
	}
	return Action{Kind: ActionStop, Message: fmt.Sprintf("%s was closed without merging; monitoring stopped.", s.pos.Monitor.Ref)}
}

// enter starts the flow for one attention. handled is false when the attention needs nothing
// now (acknowledged, acknowledged threads, a suppressed ready question) and the next one should
// be looked at.
func (s *step) enter(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	switch att.Kind {
	case prstatus.AttentionChangesRequested:
		return s.enterRefine(f, att)
	case prstatus.AttentionNewComments, prstatus.AttentionReviewerReplied:
		return s.enterComments(f, att)
	case prstatus.AttentionMergeConflict:
		return s.enterConflict(f, att)
	case prstatus.AttentionCIFailed, prstatus.AttentionCICancelled:
		return s.enterCI(f, att)
	case prstatus.AttentionReadyToMerge:
		return s.enterReady(f, att)
	case prstatus.AttentionMergeWhenReady:
		return s.enterWhenReady(f, att)
	case prstatus.AttentionStaleApproval:
		return s.enterStale(f, att)
	}
	// ci_pending, none, and anything newer than this machine: keep watching.
	row, err := s.fireFirst(TKeepWatching)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	return s.polling(waitingFor(f), false), true, nil
}

// catchUp does GitHub work the server owes whatever the flow: ask reviewers whose requested
// changes were answered to review again, resolve bot threads it already answered (bots never
// reply), and resolve threads waiting for a reviewer who has since approved (the approval settles
// them). Each is tried once per state, so a request GitHub drops silently is not repeated. What
// is owed comes from Derive's facts (reviews.awaiting_re_request, answered_by_us, SettledByApproval).
func (s *step) catchUp() (Action, bool, error) {
	if s.pos.Node != NodePolling {
		return Action{}, false, nil
	}
	row, err := s.fireFirst(TCatchUpReRequestReview, TCatchUpResolveBotThread, TCatchUpResolveSettled)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	switch row {
	case TCatchUpReRequestReview:
		reviewers := s.reRequestable()
		for _, r := range reviewers {
			s.pos.Memory.markTried("rereq:"+r, s.facts.HeadSHA)
		}
		return s.server(ServerRequest{Kind: ServerRequestReview, Reviewers: reviewers,
			Describe: "ask " + text.Count(len(reviewers), "reviewer", "reviewers") + " to review again (their requested changes were answered)"}), true, nil
	case TCatchUpResolveBotThread:
		t := s.answeredBotThread()
		s.pos.Memory.markTried("resolve:"+t.ID, t.Last().ID)
		return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID,
			Describe: "resolve a review bot's thread (answered; bots never reply)"}), true, nil
	}
	t := s.settledThread()
	s.pos.Memory.markTried("resolve:"+t.ID, t.Last().ID)
	return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID,
		Describe: "resolve a thread whose reviewer approved after our reply"}), true, nil
}

// reRequestable are the reviewers Derive says await a re-request, not yet asked on this head.
func (s *step) reRequestable() []string {
	var reviewers []string
	for _, r := range s.facts.Reviews.AwaitingReRequest {
		if !s.pos.Memory.tried("rereq:"+r, s.facts.HeadSHA) {
			reviewers = append(reviewers, r)
		}
	}
	return reviewers
}

// answeredBotThread is the first bot thread waiting on its reviewer that our reply answered (bots
// never answer back), not yet tried in its current state; nil when none. A bot thread someone
// else answered is left to them.
func (s *step) answeredBotThread() *prstatus.ThreadFact {
	for _, t := range s.facts.Threads.Waiting {
		if t.ReviewerIsBot && t.AnsweredByUs && !s.pos.Memory.tried("resolve:"+t.ID, t.Last().ID) {
			return &t
		}
	}
	return nil
}

// settledThread is the first open thread an approval settled, not yet tried; nil when none.
func (s *step) settledThread() *prstatus.ThreadFact {
	settled, _ := prstatus.SettledByApproval(s.facts)
	for _, t := range settled {
		if !s.pos.Memory.tried("resolve:"+t.ID, t.Last().ID) {
			return &t
		}
	}
	return nil
}

// catchUpDone goes back to watching whatever the outcome: catch-up work is best effort, tried once.
func (s *step) catchUpDone(req ServerRequest, o Outcome) (Action, error) {
	if err := s.fire(TCatchUpDone); err != nil {
		return Action{}, err
	}
	msg := "Done: " + req.Describe + "."
	if !o.OK {
		msg = withCause("Could not "+req.Describe+" (not retrying for this head)", o.Error)
	}
	return s.polling(msg, true), nil
}

// waitingFor says in a few words what the monitor is waiting for, and that GitHub merges the pull
// request by itself when it will (auto-merge, the merge queue). Like Reason, it names nothing
// GitHub wrote: counts and the server's own words.
func waitingFor(f *prstatus.Facts) string {
	question := waitingOn(f)
	if note := prstatus.MergingNote(f); note != "" && !strings.Contains(question, note) {
		question = strings.TrimSuffix(question, ".") + "; " + note + "."
	}
	return question
}

func waitingOn(f *prstatus.Facts) string {
	missing := len(f.CI.Missing)
	switch {
	case f.CI.Pending > 0 && missing > 0:
		return fmt.Sprintf("Waiting for CI: %d of %d checks still running; %s not reported yet.", f.CI.Pending, f.CI.Total,
			text.Count(missing, "required check has", "required checks have"))
	case f.CI.Pending > 0:
		return fmt.Sprintf("Waiting for CI: %d of %d checks still running.", f.CI.Pending, f.CI.Total)
	case f.Attention.Kind == prstatus.AttentionCIPending && missing > 0:
		return "Waiting for checks to start: " + text.Count(missing, "required check has", "required checks have") + " not reported on the head."
	case f.Attention.Kind == prstatus.AttentionCIPending && !f.CI.GraceUntil.IsZero():
		return "Waiting for checks to register: the head was pushed moments ago and no check has reported yet."
	case f.Attention.Kind == prstatus.AttentionCIPending:
		return "Waiting for checks to start: none has reported on the head, and GitHub blocks the merge."
	case f.Attention.Kind == prstatus.AttentionNone:
		return quietReason(f)
	}
	return Reason(f.Attention)
}

// WaitingFor says in a few words what a monitor whose pull request needs nothing yet waits for
// (Reason for any other attention), in the server's own words: what pr_monitor_status shows.
func WaitingFor(f *prstatus.Facts) string { return waitingFor(f) }

// Reason is an attention's reason as the agent reads it, outside any fence: in the server's own
// words, with counts. It names no reviewer, check, path or branch: those are GitHub's names, and
// they are in the context (docs/security.md, "Identifiers are data").
func Reason(att prstatus.Attention) string {
	switch att.Kind {
	case prstatus.AttentionChangesRequested:
		return text.Count(len(att.Reviewers), "reviewer requested", "reviewers requested") + " changes that are not answered yet"
	case prstatus.AttentionMergeConflict:
		return "the branch conflicts with its base branch and must be rebased or merged"
	case prstatus.AttentionNewComments:
		return fmt.Sprintf("%s need action (from %s)", text.Count(len(att.ThreadIDs), "unresolved thread", "unresolved threads"),
			text.Count(len(att.Reviewers), "reviewer", "reviewers"))
	case prstatus.AttentionReviewerReplied:
		return "a reviewer wrote again after our answer in " + text.Count(len(att.ThreadIDs), "thread", "threads")
	case prstatus.AttentionCIFailed:
		return text.Count(len(att.Checks), "check", "checks") + " failed"
	case prstatus.AttentionCICancelled:
		return text.Count(len(att.Checks), "check was", "checks were") + " cancelled"
	case prstatus.AttentionReadyToMerge:
		return "approved by " + text.Count(len(att.Reviewers), "reviewer", "reviewers") + " and CI is green"
	case prstatus.AttentionMergeWhenReady:
		return "approved by " + text.Count(len(att.Reviewers), "reviewer", "reviewers") + " with checks still to pass; the repository allows auto-merge"
	case prstatus.AttentionStaleApproval:
		return "CI is green, but the approval is on an older commit"
	case prstatus.AttentionMerged, prstatus.AttentionClosed:
		return att.Reason
	}
	return "nothing needs attention yet"
}

// quietReason says why a monitor with nothing to do keeps watching, in the server's own words.
func quietReason(f *prstatus.Facts) string {
	var why []string
	if f.IsDraft {
		why = append(why, "the pull request is a draft")
	}
	switch f.Mergeable {
	case prstatus.MergeableUnknown:
		why = append(why, "GitHub is still computing mergeability")
	case "":
		why = append(why, "mergeability is not known yet")
	}
	switch r := f.Reviews; {
	case len(r.ChangesRequestedBy) > 0:
		why = append(why, "waiting for "+text.Count(len(r.ChangesRequestedBy), "reviewer", "reviewers")+" who requested changes to review again")
	case len(r.Approvals) > 0 || len(r.StaleApprovals) > 0:
	case len(r.PendingRequests) > 0:
		why = append(why, "waiting for review from "+text.Count(len(r.PendingRequests), "requested reviewer", "requested reviewers"))
	default:
		why = append(why, "waiting for review")
	}
	if f.ReviewDecision == "REVIEW_REQUIRED" {
		why = append(why, "the base branch requires an approving review from a reviewer with write access")
	}
	if n := len(f.Threads.Waiting); n > 0 {
		why = append(why, text.Count(n, "thread waits", "threads wait")+" for a reviewer's reply")
	}
	if len(f.Blocked) > 0 {
		// prstatus words each rule in counts (prstatus/blocked.go), never a name.
		why = append(why, "GitHub blocks the merge: "+strings.Join(f.Blocked, "; "))
	}
	if note := prstatus.MergingNote(f); note != "" {
		why = append(why, note)
	}
	if len(why) == 0 {
		return "Nothing needs attention."
	}
	return "Nothing to do yet: " + strings.Join(why, "; ") + "."
}

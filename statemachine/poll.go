package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// onPoll turns a fresh poll result into at most one flow entry. Only a watching monitor (idle,
// polling, or waiting to re-run CI) takes polls; anywhere else a poll changes nothing.
func (s *step) onPoll() (Action, error) {
	f := s.in.Facts
	if st := s.pos.Node.State(); st != StatePolling && st != StateIdle {
		return s.pending(""), nil
	}
	s.observe(f)
	s.recordVerdicts(f)
	if s.pos.Node == NodeIdle {
		if err := s.move("start"); err != nil {
			return Action{}, err
		}
	}
	if s.pos.Node == NodeCIWait {
		if act, handled, err := s.ciWaitPoll(f); handled || err != nil {
			return act, err
		}
	}
	if f.State == prstatus.StateMerged || f.State == prstatus.StateClosed {
		return s.ended(f)
	}
	if act, ok, err := s.catchUp(f); ok || err != nil {
		return act, err
	}
	for _, att := range f.Attentions {
		if s.pos.Memory.acked(att.Key) {
			continue
		}
		act, handled, err := s.enter(f, att)
		if handled || err != nil {
			return act, err
		}
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
}

// ended stops on a merged or closed PR, from polling or from a waiting re-run.
func (s *step) ended(f *prstatus.Facts) (Action, error) {
	if s.pos.Node == NodeCIWait {
		if err := s.move("ci_cancel_rerun"); err != nil {
			return Action{}, err
		}
	}
	s.clearFlow()
	if f.State == prstatus.StateMerged {
		if err := s.move("merged"); err != nil {
			return Action{}, err
		}
		return Action{Kind: ActionMerged, Message: fmt.Sprintf("%s was merged.", s.pos.Monitor.Ref)}, nil
	}
	if err := s.move("closed"); err != nil {
		return Action{}, err
	}
	return Action{Kind: ActionStop, Message: fmt.Sprintf("%s was closed without merging; monitoring stopped.", s.pos.Monitor.Ref)}, nil
}

// enter starts the flow for one attention. handled is false when the attention needs nothing
// now (acknowledged threads, a suppressed ready question) and the next one should be looked at.
func (s *step) enter(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	var act Action
	var err error
	switch att.Kind {
	case prstatus.AttentionChangesRequested:
		act, err = s.enterRefine(f, att)
	case prstatus.AttentionNewComments, prstatus.AttentionReviewerReplied:
		var handled bool
		act, handled, err = s.enterComments(f, att)
		if !handled {
			return Action{}, false, err
		}
	case prstatus.AttentionMergeConflict:
		act, err = s.enterConflict(f, att)
	case prstatus.AttentionCIFailed, prstatus.AttentionCICancelled:
		if s.awaitingRerun(f) {
			return s.polling("The re-run was requested; waiting for GitHub to show it.", false), true, nil
		}
		if att.Kind == prstatus.AttentionCIFailed {
			act, err = s.enterCIFailed(f, att)
		} else {
			act, err = s.enterCICancelled(f, att)
		}
	case prstatus.AttentionReadyToMerge:
		if w := s.pos.Memory.Wait; w != nil && len(f.Reviews.Approvals) <= w.Approvals {
			return Action{}, false, nil
		}
		act, err = s.enterReady(f, att)
	case prstatus.AttentionStaleApproval:
		act, err = s.enterStale(f, att)
	default: // ci_pending, none, and anything newer than this machine: keep watching
		return s.polling(waitingFor(f), false), true, nil
	}
	return act, true, err
}

// catchUp does GitHub work the server owes whatever the flow: ask reviewers whose requested
// changes were answered to review again, resolve bot threads it already answered (bots never
// reply), and resolve threads waiting for a reviewer who has since approved (the approval settles
// them). Each is tried once per state, so a request GitHub drops silently is not repeated.
func (s *step) catchUp(f *prstatus.Facts) (Action, bool, error) {
	if s.pos.Node != NodePolling {
		return Action{}, false, nil
	}
	var reviewers []string
	for _, r := range f.Reviews.AwaitingReRequest {
		if key := "rereq:" + r; !s.pos.Memory.tried(key, f.HeadSHA) && !s.isUs(r) {
			reviewers = append(reviewers, r)
		}
	}
	if len(reviewers) > 0 {
		for _, r := range reviewers {
			s.pos.Memory.markTried("rereq:"+r, f.HeadSHA)
		}
		if err := s.move("catch_up"); err != nil {
			return Action{}, false, err
		}
		return s.server(ServerRequest{Kind: ServerRequestReview, Reviewers: reviewers,
			Describe: "ask " + strings.Join(reviewers, ", ") + " to review again (their requested changes were answered)"}), true, nil
	}
	for _, t := range f.Threads.Waiting {
		key := "resolve:" + t.ID
		if !t.ReviewerIsBot || s.pos.Memory.tried(key, t.Last().ID) {
			continue
		}
		if _, ours := prstatus.ParseMarker(t.Last().Body); !ours {
			continue // someone else answered the bot; leave it to them
		}
		s.pos.Memory.markTried(key, t.Last().ID)
		if err := s.move("catch_up"); err != nil {
			return Action{}, false, err
		}
		return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID,
			Describe: fmt.Sprintf("resolve %s's thread on %s (answered; bots never reply)", t.Reviewer, Where(t.Path, t.Line))}), true, nil
	}
	settled, _ := prstatus.SettledByApproval(f)
	for _, t := range settled {
		key := "resolve:" + t.ID
		if s.pos.Memory.tried(key, t.Last().ID) {
			continue
		}
		s.pos.Memory.markTried(key, t.Last().ID)
		if err := s.move("catch_up"); err != nil {
			return Action{}, false, err
		}
		return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID,
			Describe: fmt.Sprintf("resolve %s's thread on %s (%s approved after our reply)", t.Reviewer, Where(t.Path, t.Line), t.Reviewer)}), true, nil
	}
	return Action{}, false, nil
}

// catchUpDone goes back to watching whatever the outcome: catch-up work is best effort, tried once.
func (s *step) catchUpDone(req ServerRequest, o Outcome) (Action, error) {
	if err := s.move("catch_up_done"); err != nil {
		return Action{}, err
	}
	msg := "Done: " + req.Describe + "."
	if !o.OK {
		msg = withCause("Could not "+req.Describe+" (not retrying for this head)", o.Error)
	}
	return s.polling(msg, true), nil
}

// isUs reports whether a login is the PR's side (its author or the token's user).
func (s *step) isUs(login string) bool {
	return login != "" && (strings.EqualFold(login, s.pos.Monitor.Author) || strings.EqualFold(login, s.pos.Monitor.Viewer))
}

// waitingFor says in a few words what the monitor is waiting for.
func waitingFor(f *prstatus.Facts) string {
	if f.CI.Pending > 0 {
		return fmt.Sprintf("Waiting for CI: %d of %d checks still running.", f.CI.Pending, f.CI.Total)
	}
	return Reason(f.Attention)
}

// Reason is an attention's reason as the agent reads it, outside any fence: Derive's own reason
// where it holds only logins, commit ids, counts and times; otherwise (it names checks, paths or
// branches, which are GitHub text) a sentence with counts, the names being in the context.
func Reason(att prstatus.Attention) string {
	switch att.Kind {
	case prstatus.AttentionMergeConflict:
		return "the branch conflicts with its base branch and must be rebased or merged"
	case prstatus.AttentionNewComments:
		return fmt.Sprintf("%d unresolved thread(s) need action (from %s)", len(att.ThreadIDs), someNames(att.Reviewers))
	case prstatus.AttentionReviewerReplied:
		return fmt.Sprintf("a reviewer wrote again after our answer in %d thread(s)", len(att.ThreadIDs))
	case prstatus.AttentionCIFailed:
		return fmt.Sprintf("%d check(s) failed", len(att.Checks))
	case prstatus.AttentionCICancelled:
		return fmt.Sprintf("%d check(s) were cancelled", len(att.Checks))
	}
	return att.Reason
}

// someNames joins at most three logins and counts the rest.
func someNames(names []string) string {
	if len(names) > 3 {
		names = append(names[:3:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return prstatus.JoinNames(names)
}

// Where names a place in the pull request in the server's own sentences (and its prompts): a
// path only when it is plainly a name (see plainName), else "a file".
func Where(path string, line int) string {
	switch p := plainName(path, ""); {
	case path == "":
		return "the PR"
	case p == "":
		return "a file"
	case line > 0:
		return fmt.Sprintf("%s:%d", p, line)
	default:
		return p
	}
}

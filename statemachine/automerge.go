package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Auto-merge, on the user's word (docs/watcher.md, "GitHub as it behaves"): while an approved pull
// request waits only for its checks, on a repository that allows auto-merge, the user may have
// GitHub merge it by itself once they pass (merge_when_ready). The ready flow's handler builds the
// request (ready.go); this file asks, and watches what the user turned on: a new push, a request
// for changes, a failing check, a dismissed approval or a new thread turns it off again, and the
// user is told, as they are when it went off on GitHub.

// enterWhenReady asks whether GitHub should merge the pull request by itself once its checks pass.
// handled is false when the user already answered for this head and these approvals.
func (s *step) enterWhenReady(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TReadyAskWhenReady)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	shown := prstatus.ViewForMerge(f)
	s.pos.Ready = &ReadyState{Head: f.HeadSHA, Approvers: slices.Clone(f.Reviews.Approvals), Shown: &shown, Queue: f.MergeQueueRequired}
	s.pos.FlowKey = att.Key
	waiting := prstatus.RequiredStillToPass(f)
	question := fmt.Sprintf("%s is approved by %s on %s, and %s to pass. The repository allows auto-merge: GitHub can merge it by itself "+
		"once they pass, at this head only (a new push, a request for changes or a failing check turns it off again)",
		s.pos.Monitor.Ref, text.Count(len(f.Reviews.Approvals), "reviewer", "reviewers"), text.ShortSHA(f.HeadSHA),
		text.Count(waiting, "required check has yet", "required checks have yet"))
	if f.MergeQueueRequired {
		question += "; behind the base branch's merge queue, GitHub adds it to the queue"
	}
	question += ".\n" + quote("approved by: "+prstatus.JoinNames(f.Reviews.Approvals))
	act, err := s.ask(elicitation.QMergeWhenReady, question, []elicitation.Value{elicitation.AutoMerge, elicitation.Resume,
		elicitation.HandleMyself, elicitation.Stop}, nil)
	return act, true, err
}

// autoMergeOutcome reports turning auto-merge on: on, the monitor watches until GitHub merges (and
// turns it off again on news); not attempted as the pull request changed, the next polls show
// what; refused by GitHub, the user says what now; failed otherwise, they may try again.
func (s *step) autoMergeOutcome(req ServerRequest, o Outcome) (Action, error) {
	row, err := s.mustFireFirst(TReadyAutoMergeOn, TReadyAutoMergeNotOn, TReadyAutoMergeRefused, TReadyAutoMergeFailed)
	if err != nil {
		return Action{}, err
	}
	switch row {
	case TReadyAutoMergeOn:
		s.pos.Memory.AutoMerge = &AutoMergeOn{Shown: *req.Shown, At: s.now}
		s.clearFlow()
		return s.polling(fmt.Sprintf("Auto-merge is on: GitHub merges %s at %s by itself once every requirement is met. Watching until it "+
			"does; a new push, a request for changes or a failing check turns it off again.", s.pos.Monitor.Ref, text.ShortSHA(req.ExpectedHeadSHA)), true), nil
	case TReadyAutoMergeNotOn:
		s.clearFlow()
		msg := "Auto-merge was not turned on: the head moved since you chose it. Watching the new head."
		if len(o.Changed) > 0 {
			msg = "Auto-merge was not turned on: the pull request changed since you were asked (below, as GitHub reports it). Watching.\n" +
				quote(o.Changed...)
		}
		return s.polling(msg, true), nil
	case TReadyAutoMergeRefused:
		return s.askRefused(req, o, "GitHub refused to turn on auto-merge")
	}
	return s.askFailed(req, o, false)
}

// autoMergeState is what a poll shows of auto-merge the user turned on.
type autoMergeState int

const (
	autoMergeFine     autoMergeState = iota // none turned on, or on and still what the user saw
	autoMergeOutdated                       // still on, and the pull request shows news: turn it off
	autoMergeDropped                        // off on GitHub (turned off there, or by GitHub), not queued
)

// autoMergeNews reads the poll's facts against the auto-merge the user turned on.
func (s *step) autoMergeNews() autoMergeState {
	on, f := s.pos.Memory.AutoMerge, s.facts
	switch {
	case on == nil || f == nil || f.State != prstatus.StateOpen:
		return autoMergeFine
	case f.AutoMerge != nil && len(on.Shown.Changes(f)) > 0:
		return autoMergeOutdated
	case f.AutoMerge == nil && !f.InMergeQueue:
		return autoMergeDropped
	}
	return autoMergeFine
}

// watchAutoMerge, on a poll while watching: auto-merge the user turned on is turned off again when
// the pull request shows what they were not shown, and the user is told when it went off on
// GitHub. ok is false when there is nothing to do (GitHub merging it is the poll's pr_merged).
func (s *step) watchAutoMerge() (Action, bool, error) {
	if s.pos.Memory.AutoMerge == nil || s.pos.Node != NodePolling {
		return Action{}, false, nil
	}
	on := *s.pos.Memory.AutoMerge
	row, err := s.fireFirst(TReadyDisableAutoMerge, TReadyAutoMergeDropped)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	s.pos.Memory.AutoMerge = nil // the flow has it now
	changed := on.Shown.Changes(s.facts)
	s.pos.Ready = &ReadyState{Head: on.Shown.Head, Approvers: slices.Clone(on.Shown.Approvers), Shown: &on.Shown, Changed: changed}
	s.pos.FlowKey = "auto_merge_off@" + s.facts.HeadSHA
	if row == TReadyDisableAutoMerge {
		return s.server(ServerRequest{Kind: ServerDisableAutoMerge,
			Describe: fmt.Sprintf("turn off auto-merge for %s (it changed since auto-merge was turned on)", s.pos.Monitor.Ref)}), true, nil
	}
	act, err := s.askAutoMergeOff("Auto-merge is off: it was turned off on GitHub, so GitHub will not merge the pull request by itself")
	return act, true, err
}

// disableOutcome reports turning auto-merge off: done, the user is told why; failed, they may try
// again (until it is off, GitHub may merge what they did not see).
func (s *step) disableOutcome(req ServerRequest, o Outcome) (Action, error) {
	row, err := s.mustFireFirst(TReadyAutoMergeDisabled, TReadyDisableFailed)
	if err != nil {
		return Action{}, err
	}
	if row == TReadyDisableFailed {
		return s.askFailed(req, o, false)
	}
	return s.askAutoMergeOff("Auto-merge is off again: GitHub will not merge the pull request by itself, and nothing was merged")
}

// askAutoMergeOff tells the user (and the agent) that auto-merge is off, and why.
func (s *step) askAutoMergeOff(sentence string) (Action, error) {
	question := sentence + "."
	if changed := s.pos.Ready.Changed; len(changed) > 0 {
		question = sentence + ". The pull request changed since you turned auto-merge on (below, as GitHub reports it).\n" + quote(changed...)
	}
	act, err := s.ask(elicitation.QAutoMergeOff, question, []elicitation.Value{elicitation.Resume, elicitation.HandleMyself, elicitation.Stop}, nil)
	if err == nil {
		act.Message = strings.SplitN(sentence, ":", 2)[0] + "; the question says why."
	}
	return act, err
}

package statemachine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// enterComments starts the comment flow for threads that need action or that a reviewer answered.
// Threads the user already acknowledged (in their current state) are left out; handled is false
// when none remain or the attention is acknowledged.
func (s *step) enterComments(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TCommentsFollowUp, TCommentsExplainOne, TCommentsAskMulti)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	threads := s.unackedThreads()
	cs := &CommentsState{Threads: threads, Handled: map[string]string{}}
	cs.Cluster = s.clusterFor(f, threadIDs(threads))
	s.pos.Comments, s.pos.FlowKey = cs, att.Key
	switch row {
	case TCommentsFollowUp:
		cs.Mode, cs.Round = ModeFollowUp, s.refinedRound(threads)
		return s.addressTask(), true, nil
	case TCommentsExplainOne:
		cs.Mode, cs.Threads = ModeSingle, threads[:1] // replies are taken one at a time
		return s.explain(), true, nil
	}
	cs.Mode = ModeMulti
	act, err := s.askMulti()
	return act, true, err
}

// unackedThreads are the threads the poll's attention is about that the user has not acknowledged
// in their current state.
func (s *step) unackedThreads() []ThreadContext {
	if s.unackedFor == s.att && s.att != nil {
		return s.unacked
	}
	s.unacked, s.unackedFor = s.unackedFrom(), s.att
	return s.unacked
}

func (s *step) unackedFrom() []ThreadContext {
	src := s.facts.Threads.NeedsAction
	if s.att.Kind == prstatus.AttentionReviewerReplied {
		src = s.facts.Threads.ReviewerReplied
	}
	var threads []ThreadContext
	for _, t := range src {
		if !s.pos.Memory.acked(threadKey(t.ID, t.Last().ID)) {
			threads = append(threads, threadContext(t))
		}
	}
	return threads
}

// followsUpRefine: new threads that all belong to a refine round the agent finished.
func (s *step) followsUpRefine() bool {
	return s.att.Kind == prstatus.AttentionNewComments && s.refinedRound(s.unackedThreads()) != ""
}

// refinedRound finds the refine round whose threads these all are: the agent already changed the
// code for them, so the flow only collects a reply per thread instead of asking how to proceed.
// When several rounds hold them all, the latest dispatched wins (ties by id): the answer must not
// depend on map order, or a replayed workflow would step differently (docs/decisions/0002).
func (s *step) refinedRound(threads []ThreadContext) string {
	best := ""
	for _, id := range slices.Sorted(maps.Keys(s.pos.Memory.Rounds)) {
		rec := s.pos.Memory.Rounds[id]
		if !rec.Completed || !holdsAll(rec.ThreadIDs, threads) {
			continue
		}
		if best == "" || rec.LastDispatched.After(s.pos.Memory.Rounds[best].LastDispatched) {
			best = id
		}
	}
	return best
}

func holdsAll(ids []string, threads []ThreadContext) bool {
	for _, t := range threads {
		if !slices.Contains(ids, t.ID) {
			return false
		}
	}
	return true
}

func (s *step) current() ThreadContext { return s.pos.Comments.Threads[s.pos.Comments.Index] }

func (s *step) progress() string {
	cs := s.pos.Comments
	if len(cs.Threads) < 2 {
		return ""
	}
	return fmt.Sprintf("%d/%d", cs.Index+1, len(cs.Threads))
}

// explain hands out explain_comment for the current thread (the server answers it with sampling
// when the client offers it).
func (s *step) explain() Action {
	t := s.current()
	s.pos.Comments.Recommendation = ""
	ctx := TaskContext{Thread: &t, Progress: s.progress()}
	if t.ReviewerReplied {
		ctx.Note = "The reviewer replied to the earlier answer on this thread (context.thread.replies)."
	}
	return s.execute(TaskExplainComment, []Event{EventTaskComplete}, ctx, "")
}

func (s *step) addressTask() Action {
	t := s.current()
	ctx := TaskContext{Thread: &t, Progress: s.progress(), Recommendation: s.pos.Comments.Recommendation,
		Cluster: s.pos.Comments.Cluster, PriorAttempt: s.priorAttempt()}
	if s.pos.Comments.Mode == ModeFollowUp {
		ctx.Round = s.pos.Comments.Round
		ctx.Note = "This thread was part of the review you just refined. If your pushed changes already handle it, reply with what changed; do not change the code again."
	}
	return s.execute(TaskAddressComment, []Event{EventCommentAddressed, EventCommentReplied}, ctx, "")
}

func (s *step) applyTask() Action {
	t := s.current()
	return s.execute(TaskApplyRecommendation, []Event{EventCommentAddressed, EventCommentReplied},
		TaskContext{Thread: &t, Progress: s.progress(), Recommendation: s.pos.Comments.Recommendation,
			Cluster: s.pos.Comments.Cluster, PriorAttempt: s.priorAttempt()}, "")
}

// afterExplain asks what to do with the thread now that it is explained.
func (s *step) afterExplain(rec string) (Action, error) {
	s.pos.Comments.Recommendation = rec
	if _, err := s.mustFireFirst(TCommentsExplainedOne, TCommentsExplainedInTurn); err != nil {
		return Action{}, err
	}
	return s.askExplained()
}

func (s *step) askExplained() (Action, error) {
	cs, t := s.pos.Comments, s.current()
	ctx := &TaskContext{Thread: &t, Progress: s.progress(), Recommendation: cs.Recommendation}
	question := "The review comment:\n" + quote(quotedThread(t, t.Comment, maxExcerpt))
	if t.ReviewerReplied && len(t.Replies) > 0 {
		question = "The reviewer's reply:\n" + quote(quotedThread(t, t.Replies[len(t.Replies)-1].Body, maxExcerpt))
	}
	if cs.Recommendation != "" {
		question += "\nRecommendation: " + text.ClipBytes(cs.Recommendation, maxAnalysis)
	}
	var values []elicitation.Value
	if cs.Recommendation != "" {
		values = append(values, elicitation.ApplyRecommendation)
	}
	values = append(values, elicitation.Address)
	if cs.Mode == ModeExplainAll {
		question = fmt.Sprintf("Comment %s. %s", s.progress(), question)
		return s.ask(elicitation.QCommentExplained, question, append(values, elicitation.Skip, elicitation.Done, elicitation.Stop), ctx)
	}
	if t.ReviewerReplied {
		values = append(values, elicitation.ResolveThread)
	}
	return s.ask(elicitation.QCommentSingle, question, append(values, elicitation.Skip, elicitation.HandleMyself, elicitation.Stop), ctx)
}

func (s *step) askMulti() (Action, error) {
	cs := s.pos.Comments
	all := make([]int, len(cs.Threads))
	for i := range all {
		all[i] = i
	}
	question := fmt.Sprintf("%d review comments need action:\n", len(cs.Threads)) + s.threadList(all)
	return s.ask(elicitation.QCommentsMulti, question, []elicitation.Value{elicitation.AddressAll, elicitation.ExplainAll,
		elicitation.AddressSpecific, elicitation.HandleMyself, elicitation.Stop}, &TaskContext{Threads: cs.Threads})
}

func (s *step) askItem() (Action, error) {
	t := s.current()
	question := fmt.Sprintf("Comment %s:\n%s", s.progress(), quote(quotedThread(t, t.Comment, maxExcerpt)))
	return s.ask(elicitation.QCommentItem, question, []elicitation.Value{elicitation.Address, elicitation.Skip, elicitation.Done, elicitation.Stop},
		&TaskContext{Thread: &t, Progress: s.progress()})
}

// askPick offers the first maxListed unhandled threads (the question counts the others; once one
// is handled the flow offers to continue with the rest in order). Labels carry no GitHub text:
// the comments are quoted, fenced, in the question.
func (s *step) askPick() (Action, error) {
	cs := s.pos.Comments
	var picks []elicitation.Choice
	open := s.unhandled()
	for _, i := range open[:min(len(open), maxListed)] {
		picks = append(picks, elicitation.Choice{Value: elicitation.Pick(i + 1),
			Label: fmt.Sprintf("Comment %d", i+1)})
	}
	return s.ask(elicitation.QCommentPick, "Which comment should be addressed?\n"+s.threadList(open),
		[]elicitation.Value{elicitation.HandleMyself, elicitation.Stop}, &TaskContext{Threads: cs.Threads}, picks...)
}

// threadList quotes the threads at the given indexes, numbered as in the flow, at most maxListed
// of them: one fenced block, then how many more there are and where to see them all.
func (s *step) threadList(idx []int) string {
	ts := s.pos.Comments.Threads
	var lines []string
	for _, i := range idx[:min(len(idx), maxListed)] {
		lines = append(lines, fmt.Sprintf("%d. %s", i+1, quotedThread(ts[i], ts[i].Comment, maxListExcerpt)))
	}
	return quote(lines...) + s.more(len(idx)-maxListed, "comments")
}

// more says how many items a list left out and where to see them, or nothing.
func (s *step) more(n int, what string) string {
	if n <= 0 {
		return ""
	}
	where := "on GitHub"
	if u := s.pos.Monitor.URL; u != "" {
		where = "at " + u
	}
	return fmt.Sprintf("\n…and %d more %s, not listed here; see them all %s.", n, what, where)
}

func (s *step) askRemaining(summary string) (Action, error) {
	n := len(s.unhandled())
	return s.ask(elicitation.QCommentsRemaining, fmt.Sprintf("%s %s remain.", summary, text.Count(n, "more comment", "more comments")),
		[]elicitation.Value{elicitation.Continue, elicitation.Done, elicitation.Stop}, nil)
}

func (s *step) askManual() (Action, error) {
	s.pos.Comments.Mode = ModeManual
	return s.ask(elicitation.QCommentsManual, "Handle the comments on GitHub, then tell me when you are done.",
		[]elicitation.Value{elicitation.DoneHandling, elicitation.Stop}, &TaskContext{Threads: s.pos.Comments.Threads})
}

// commentsAnswer handles every choice a comment question can offer.
func (s *step) commentsAnswer(v elicitation.Value) (Action, error) {
	cs := s.pos.Comments
	if n, ok := elicitation.PickIndex(v); ok {
		cs.Index, cs.Mode, cs.Picked = n-1, ModeSingle, true
		return s.then(TCommentsPicked, s.explain)
	}
	switch v {
	case elicitation.AddressAll:
		cs.Mode, cs.Index = ModeAddressAll, 0
		return s.thenAsk(TCommentsAddressAll, s.askItem)
	case elicitation.ExplainAll:
		cs.Mode, cs.Index = ModeExplainAll, 0
		return s.then(TCommentsExplainAll, s.explain)
	case elicitation.AddressSpecific:
		cs.Mode = ModePick
		return s.thenAsk(TCommentsAddressSpecific, s.askPick)
	case elicitation.HandleMyself:
		return s.thenAsk(TCommentsHandleMyself, s.askManual)
	case elicitation.Address:
		return s.then(TCommentsAddress, s.addressTask)
	case elicitation.ApplyRecommendation:
		return s.then(TCommentsApply, s.applyTask)
	case elicitation.ResolveThread:
		t := s.current()
		return s.then(TCommentsResolve, func() Action {
			return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID, Describe: "resolve " + describeThread(t)})
		})
	case elicitation.Skip:
		cs.mark(s.current().ID, handledSkipped)
		return s.nextThread(TCommentsSkip, "Skipped.")
	case elicitation.Continue:
		next := s.unhandled()
		cs.Index, cs.Mode = next[0], ModeSingle
		return s.then(TCommentsContinue, s.explain)
	case elicitation.Done:
		return s.finishComments(TCommentsDone, "Done with the comments; watching again.")
	case elicitation.DoneHandling:
		return s.finishComments(TCommentsDoneHandling, "Noted that you handled the comments; watching again.")
	}
	return Action{}, fmt.Errorf("statemachine: comment flow has no handler for %q (a bug)", v)
}

// commentsComplete handles a comment task's completion event.
func (s *step) commentsComplete(ev Event, data EventData) (Action, error) {
	task := s.pos.Task
	if task.Name == TaskExplainComment {
		return s.afterExplain(data.Recommendation)
	}
	kind := prstatus.ReplyAddressed
	if ev == EventCommentReplied {
		kind = prstatus.ReplyReplied
	}
	if task.Name == TaskComposeReply {
		kind = task.ReplyKind
	}
	return s.commentsCompleteAs(kind, data)
}

// commentsCompleteAs completes the current comment task as addressed or replied: the reply is
// posted, or composed first when the completion carried none.
func (s *step) commentsCompleteAs(kind prstatus.ReplyKind, data EventData) (Action, error) {
	s.data = data
	if data.ReplyText == "" {
		return s.composeReply(kind, data)
	}
	return s.postReply(kind, data.ReplyText)
}

// composeReply asks for the reply text that the completion lacked. It keeps the head snapshot of
// the task that pushed, so recovery still compares against the right head.
func (s *step) composeReply(kind prstatus.ReplyKind, data EventData) (Action, error) {
	snapshot := ""
	if s.pos.Task != nil {
		snapshot = s.pos.Task.HeadSnapshot
	}
	t := s.current()
	ev := EventCommentAddressed
	if kind == prstatus.ReplyReplied {
		ev = EventCommentReplied
	}
	if _, err := s.mustFireFirst(TCommentsCompose, TCommentsRecoveredCompose); err != nil {
		return Action{}, err
	}
	rec := s.pos.Comments.Recommendation
	if data.Recommendation != "" {
		rec = data.Recommendation
	}
	act := s.execute(TaskComposeReply, []Event{ev}, TaskContext{Thread: &t, ReplyKind: kind, Recommendation: rec}, snapshot)
	s.pos.Task.ReplyKind = kind
	return act, nil
}

func (s *step) postReply(kind prstatus.ReplyKind, question string) (Action, error) {
	t := s.current()
	round := s.pos.Comments.Round
	if round == "" {
		round = roundID(s.pos.FlowKey)
	}
	if _, err := s.mustFireFirst(TCommentsPostReply, TCommentsRecoveredReply); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerPostReply, ThreadID: t.ID, ReplyToID: t.ReplyToID, Body: question,
		Marker:   prstatus.Marker{Round: round, Thread: t.ID, Kind: kind, Category: string(s.pos.Comments.category(t))},
		Describe: "reply to " + describeThread(t)}), nil
}

// commentsOutcome continues after the server posted, resolved or requested.
func (s *step) commentsOutcome(req ServerRequest, o Outcome) (Action, error) {
	cs := s.pos.Comments
	if req.Kind == ServerRequestReview { // best effort: the flow is over either way
		msg := "Asked " + text.Count(len(req.Reviewers), "reviewer", "reviewers") + " to review again."
		if !o.OK {
			msg = withCause("Could not "+req.Describe, o.Error)
		}
		return s.finish(msg, TCommentsReReviewAsked)
	}
	if !o.OK {
		if err := s.fire(TCommentsActionFailed); err != nil {
			return Action{}, err
		}
		return s.askFailed(req, o, true)
	}
	switch req.Kind {
	case ServerPostReply:
		t := s.current()
		cs.mark(t.ID, string(req.Marker.Kind))
		// An addressed thread is resolved; a reply to a bot too (bots never answer). A reply to a
		// human leaves the thread open and waiting for them.
		row, err := s.mustFireFirst(TCommentsResolveAfterReply, TCommentsAwaitReviewer)
		if err != nil {
			return Action{}, err
		}
		if row == TCommentsResolveAfterReply {
			return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID, Describe: "resolve " + describeThread(t)}), nil
		}
		return s.advance("Replied; the thread stays open for the reviewer.")
	case ServerResolveThread:
		t := s.current()
		if cs.Handled[t.ID] == "" {
			cs.mark(t.ID, handledResolved)
		}
		return s.nextThread(TCommentsResolved, "Resolved the thread.")
	}
	return Action{}, fmt.Errorf("statemachine: comment flow has no handler for outcome %s (a bug)", req.Kind)
}

// resolvesAfterReply: the reply just posted addressed the thread, or went to a bot.
func (s *step) resolvesAfterReply() bool {
	return s.req != nil && (s.req.Marker.Kind == prstatus.ReplyAddressed || s.current().ReviewerIsBot)
}

// nextThread leaves the current thread through row (skipped, resolved, left to the user) and
// takes the next one.
func (s *step) nextThread(row Transition, summary string) (Action, error) {
	if err := s.fire(row); err != nil {
		return Action{}, err
	}
	return s.advance(summary)
}

// advance decides, at comments_next_thread, which thread comes next, or finishes the flow.
func (s *step) advance(summary string) (Action, error) {
	cs := s.pos.Comments
	next := s.nextUnhandled()
	row, err := s.mustFireFirst(TCommentsNextInAddressAll, TCommentsNextInExplainAll, TCommentsNextFollowUp,
		TCommentsOthersRemain, TCommentsNoneLeft)
	if err != nil {
		return Action{}, err
	}
	switch row {
	case TCommentsNextInAddressAll:
		cs.Index = next
		return s.askItem()
	case TCommentsNextInExplainAll:
		cs.Index = next
		return s.explain(), nil
	case TCommentsNextFollowUp:
		cs.Index = next
		return s.addressTask(), nil
	case TCommentsOthersRemain:
		cs.Mode = ModeRemaining
		return s.askRemaining(summary)
	}
	return s.finishComments("", summary)
}

// nextUnhandled is the first unhandled thread after the current one, or -1.
func (s *step) nextUnhandled() int {
	cs := s.pos.Comments
	for i := cs.Index + 1; i < len(cs.Threads); i++ {
		if cs.Handled[cs.Threads[i].ID] == "" {
			return i
		}
	}
	return -1
}

// nextIn: the flow iterates in mode m and an unhandled thread follows.
func (s *step) nextIn(m CommentMode) bool {
	return s.pos.Comments.Mode == m && s.nextUnhandled() >= 0
}

// pickedOthersRemain: outside the iterating modes, the thread was picked from a list and others
// are unhandled.
func (s *step) pickedOthersRemain() bool {
	cs := s.pos.Comments
	switch cs.Mode {
	case ModeAddressAll, ModeExplainAll, ModeFollowUp:
		return false
	}
	return cs.Picked && len(s.unhandled()) > 0
}

func (s *step) unhandled() []int {
	var out []int
	for i, t := range s.pos.Comments.Threads {
		if s.pos.Comments.Handled[t.ID] == "" {
			out = append(out, i)
		}
	}
	return out
}

// finishComments ends the flow (entered at comments_finishing through row, or from
// comments_next_thread when row is ""): every thread of the flow is acknowledged in the state the
// flow saw it in (it comes back when someone writes in it), so a poll that still shows a thread as
// it was before our reply (a snapshot older than the reply, GitHub catching up) does not hand it
// out again; reviewers all of whose threads were answered are asked to review again.
func (s *step) finishComments(row Transition, summary string) (Action, error) {
	if row != "" {
		if err := s.fire(row); err != nil {
			return Action{}, err
		}
	}
	cs := s.pos.Comments
	round := cs.Round
	if round == "" {
		round = roundID(s.pos.FlowKey)
	}
	for _, h := range cs.Handled {
		if h == handledAddressed || h == handledReplied {
			s.workDone(round)
			break
		}
	}
	for _, t := range cs.Threads {
		s.pos.Memory.ack(threadKey(t.ID, t.LastCommentID))
	}
	reviewers := s.reReviewers()
	// The situation this flow answered is done with: even if GitHub somehow still shows it
	// unchanged (a reply that did not land), it must not re-fire the same flow in a loop.
	s.pos.Memory.ack(s.pos.FlowKey)
	next, err := s.mustFireFirst(TCommentsFinished, TCommentsAskReReview)
	if err != nil {
		return Action{}, err
	}
	if next == TCommentsFinished {
		s.clearFlow()
		return s.polling(summary, true), nil
	}
	for _, r := range reviewers {
		s.pos.Memory.markTried("rereq:"+r, s.pos.Head)
	}
	return s.server(ServerRequest{Kind: ServerRequestReview, Reviewers: reviewers,
		Describe: "ask " + text.Count(len(reviewers), "reviewer", "reviewers") + " to review again (all their comments are answered)"}), nil
}

// reReviewers are the reviewers of the flow's threads all of whose threads were answered, who
// are not the PR's side, not already requested and not yet asked on this head; sorted.
func (s *step) reReviewers() []string {
	cs := s.pos.Comments
	answered := map[string]bool{}
	for _, t := range cs.Threads {
		h := cs.Handled[t.ID]
		ok := h == handledAddressed || h == handledReplied || h == handledResolved
		if prev, seen := answered[t.Reviewer]; !seen || prev {
			answered[t.Reviewer] = ok
		}
	}
	m := s.pos.Monitor
	var reviewers []string
	for r, ok := range answered {
		if ok && !prstatus.IsUs(r, m.Author, m.Viewer) && !slices.Contains(m.PendingReviews, r) && !s.pos.Memory.tried("rereq:"+r, s.pos.Head) {
			reviewers = append(reviewers, r)
		}
	}
	slices.Sort(reviewers)
	return reviewers
}

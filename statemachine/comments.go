package statemachine

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// enterComments starts the comment flow for threads that need action or that a reviewer answered.
// Threads the user already acknowledged (in their current state) are left out; handled is false
// when none remain.
func (s *step) enterComments(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	src := f.Threads.NeedsAction
	if att.Kind == prstatus.AttentionReviewerReplied {
		src = f.Threads.ReviewerReplied
	}
	var threads []ThreadContext
	for _, t := range src {
		if !s.pos.Memory.acked(threadKey(t.ID, t.Last().ID)) {
			threads = append(threads, threadContext(t))
		}
	}
	if len(threads) == 0 {
		return Action{}, false, nil
	}
	cs := &CommentsState{Threads: threads, Handled: map[string]string{}}
	cs.Cluster = s.clusterFor(f, threadIDs(threads))
	s.pos.Comments, s.pos.FlowKey = cs, att.Key
	if round := s.refinedRound(threads); round != "" && att.Kind == prstatus.AttentionNewComments {
		cs.Mode, cs.Round = ModeFollowUp, round
		if err := s.work(FlowComments); err != nil {
			return Action{}, true, err
		}
		return s.addressTask(), true, nil
	}
	if att.Kind == prstatus.AttentionReviewerReplied || len(threads) == 1 {
		cs.Mode, cs.Threads = ModeSingle, threads[:1] // replies are taken one at a time
		if err := s.work(FlowComments); err != nil {
			return Action{}, true, err
		}
		return s.explain(), true, nil
	}
	cs.Mode = ModeMulti
	if err := s.toAsk(FlowComments); err != nil {
		return Action{}, true, err
	}
	act, err := s.askMulti()
	return act, true, err
}

// refinedRound finds the refine round whose threads these all are: the agent already changed the
// code for them, so the flow only collects a reply per thread instead of asking how to proceed.
func (s *step) refinedRound(threads []ThreadContext) string {
	for id, rec := range s.pos.Memory.Rounds {
		if !rec.Completed {
			continue
		}
		all := true
		for _, t := range threads {
			if !slices.Contains(rec.ThreadIDs, t.ID) {
				all = false
				break
			}
		}
		if all {
			return id
		}
	}
	return ""
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
		ctx.Note = t.Reviewer + " replied to the earlier answer on this thread."
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
	cs := s.pos.Comments
	cs.Recommendation = rec
	if err := s.toAsk(FlowComments); err != nil {
		return Action{}, err
	}
	return s.askExplained()
}

func (s *step) askExplained() (Action, error) {
	cs, t := s.pos.Comments, s.current()
	ctx := &TaskContext{Thread: &t, Progress: s.progress(), Recommendation: cs.Recommendation}
	text := "The review comment:\n" + quote(quotedThread(t, t.Comment, maxExcerpt))
	if t.ReviewerReplied && len(t.Replies) > 0 {
		text = "The reviewer's reply:\n" + quote(quotedThread(t, t.Replies[len(t.Replies)-1].Body, maxExcerpt))
	}
	if cs.Recommendation != "" {
		text += "\nRecommendation: " + clip(cs.Recommendation, maxAnalysis)
	}
	var values []elicitation.Value
	if cs.Recommendation != "" {
		values = append(values, elicitation.ApplyRecommendation)
	}
	values = append(values, elicitation.Address)
	if cs.Mode == ModeExplainAll {
		text = fmt.Sprintf("Comment %s. %s", s.progress(), text)
		return s.ask(elicitation.QCommentExplained, text, append(values, elicitation.Skip, elicitation.Done, elicitation.Stop), ctx)
	}
	if t.ReviewerReplied {
		values = append(values, elicitation.ResolveThread)
	}
	return s.ask(elicitation.QCommentSingle, text, append(values, elicitation.Skip, elicitation.HandleMyself, elicitation.Stop), ctx)
}

func (s *step) askMulti() (Action, error) {
	cs := s.pos.Comments
	all := make([]int, len(cs.Threads))
	for i := range all {
		all[i] = i
	}
	text := fmt.Sprintf("%d review comments need action:\n", len(cs.Threads)) + s.threadList(all)
	return s.ask(elicitation.QCommentsMulti, text, []elicitation.Value{elicitation.AddressAll, elicitation.ExplainAll,
		elicitation.AddressSpecific, elicitation.HandleMyself, elicitation.Stop}, &TaskContext{Threads: cs.Threads})
}

func (s *step) askItem() (Action, error) {
	t := s.current()
	text := fmt.Sprintf("Comment %s:\n%s", s.progress(), quote(quotedThread(t, t.Comment, maxExcerpt)))
	return s.ask(elicitation.QCommentItem, text, []elicitation.Value{elicitation.Address, elicitation.Skip, elicitation.Done, elicitation.Stop},
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
			Label: fmt.Sprintf("Comment %d (%s)", i+1, cs.Threads[i].Reviewer)})
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
	return quote(lines...) + s.more(len(idx)-maxListed, "comment(s)")
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
	return s.ask(elicitation.QCommentsRemaining, fmt.Sprintf("%s %d more comment(s) remain.", summary, n),
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
		return s.workThen(s.explain)
	}
	switch v {
	case elicitation.AddressAll:
		cs.Mode, cs.Index = ModeAddressAll, 0
		return s.askThen(s.askItem)
	case elicitation.ExplainAll:
		cs.Mode, cs.Index = ModeExplainAll, 0
		return s.workThen(s.explain)
	case elicitation.AddressSpecific:
		cs.Mode = ModePick
		return s.askThen(s.askPick)
	case elicitation.HandleMyself:
		return s.askThen(s.askManual)
	case elicitation.Address:
		return s.workThen(s.addressTask)
	case elicitation.ApplyRecommendation:
		return s.workThen(s.applyTask)
	case elicitation.ResolveThread:
		t := s.current()
		if err := s.work(FlowComments); err != nil {
			return Action{}, err
		}
		return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID, Describe: "resolve " + describeThread(t)}), nil
	case elicitation.Skip:
		cs.mark(s.current().ID, handledSkipped)
		return s.advance("Skipped.")
	case elicitation.Continue:
		next := s.unhandled()
		cs.Index, cs.Mode = next[0], ModeSingle
		return s.workThen(s.explain)
	case elicitation.Done:
		return s.finishComments("Done with the comments; watching again.")
	case elicitation.DoneHandling:
		return s.finishComments("Noted that you handled the comments; watching again.")
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
	if err := s.work(FlowComments); err != nil {
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

func (s *step) postReply(kind prstatus.ReplyKind, text string) (Action, error) {
	t := s.current()
	round := s.pos.Comments.Round
	if round == "" {
		round = roundID(s.pos.FlowKey)
	}
	if err := s.work(FlowComments); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerPostReply, ThreadID: t.ID, ReplyToID: t.ReplyToID, Body: text,
		Marker:   prstatus.Marker{Round: round, Thread: t.ID, Kind: kind, Category: string(s.pos.Comments.category(t))},
		Describe: "reply to " + describeThread(t)}), nil
}

// commentsOutcome continues after the server posted, resolved or requested.
func (s *step) commentsOutcome(req ServerRequest, o Outcome) (Action, error) {
	if !o.OK {
		return s.actionFailed(FlowComments, req, o, true)
	}
	cs := s.pos.Comments
	switch req.Kind {
	case ServerPostReply:
		t := s.current()
		cs.mark(t.ID, string(req.Marker.Kind))
		// An addressed thread is resolved; a reply to a bot too (bots never answer). A reply to a
		// human leaves the thread open and waiting for them.
		if req.Marker.Kind == prstatus.ReplyAddressed || t.ReviewerIsBot {
			return s.server(ServerRequest{Kind: ServerResolveThread, ThreadID: t.ID, Describe: "resolve " + describeThread(t)}), nil
		}
		return s.advance(fmt.Sprintf("Replied to %s; the thread stays open for them.", t.Reviewer))
	case ServerResolveThread:
		t := s.current()
		if cs.Handled[t.ID] == "" {
			cs.mark(t.ID, handledResolved)
		}
		return s.advance(fmt.Sprintf("Resolved %s's thread.", t.Reviewer))
	case ServerRequestReview:
		return s.finish("comments_done", "Asked "+prstatus.JoinNames(req.Reviewers)+" to review again.")
	}
	return Action{}, fmt.Errorf("statemachine: comment flow has no handler for outcome %s (a bug)", req.Kind)
}

// advance moves to the next thread of the flow, or finishes it.
func (s *step) advance(summary string) (Action, error) {
	cs := s.pos.Comments
	next := -1
	for i := cs.Index + 1; i < len(cs.Threads); i++ {
		if cs.Handled[cs.Threads[i].ID] == "" {
			next = i
			break
		}
	}
	switch cs.Mode {
	case ModeAddressAll:
		if next >= 0 {
			cs.Index = next
			return s.askThen(s.askItem)
		}
	case ModeExplainAll:
		if next >= 0 {
			cs.Index = next
			return s.workThen(s.explain)
		}
	case ModeFollowUp:
		if next >= 0 {
			cs.Index = next
			return s.workThen(s.addressTask)
		}
	default:
		if cs.Picked && len(s.unhandled()) > 0 {
			cs.Mode = ModeRemaining
			if err := s.toAsk(FlowComments); err != nil {
				return Action{}, err
			}
			return s.askRemaining(summary)
		}
	}
	return s.finishComments(summary)
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

// finishComments ends the flow: every thread of the flow is acknowledged in the state the flow
// saw it in (it comes back when someone writes in it), so a poll that still shows a thread as it
// was before our reply (a snapshot older than the reply, GitHub catching up) does not hand it out
// again; reviewers all of whose threads were answered are asked to review again.
func (s *step) finishComments(summary string) (Action, error) {
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
	answered := map[string]bool{}
	for _, t := range cs.Threads {
		h := cs.Handled[t.ID]
		s.pos.Memory.ack(threadKey(t.ID, t.LastCommentID))
		ok := h == handledAddressed || h == handledReplied || h == handledResolved
		if prev, seen := answered[t.Reviewer]; !seen || prev {
			answered[t.Reviewer] = ok
		}
	}
	var reviewers []string
	for r, ok := range answered {
		key := "rereq:" + r
		if ok && !s.isUs(r) && !slices.Contains(s.pos.Monitor.PendingReviews, r) && !s.pos.Memory.tried(key, s.pos.Head) {
			reviewers = append(reviewers, r)
		}
	}
	// The situation this flow answered is done with: even if GitHub somehow still shows it
	// unchanged (a reply that did not land), it must not re-fire the same flow in a loop.
	s.pos.Memory.ack(s.pos.FlowKey)
	if len(reviewers) == 0 || cs.Mode == ModeManual {
		return s.finish("comments_done", summary)
	}
	slices.Sort(reviewers)
	for _, r := range reviewers {
		s.pos.Memory.markTried("rereq:"+r, s.pos.Head)
	}
	if err := s.work(FlowComments); err != nil {
		return Action{}, err
	}
	return s.server(ServerRequest{Kind: ServerRequestReview, Reviewers: reviewers,
		Describe: "ask " + prstatus.JoinNames(reviewers) + " to review again (all their comments are answered)"}), nil
}

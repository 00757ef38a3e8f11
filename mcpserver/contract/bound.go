package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Every payload an agent reads is bounded here, whatever GitHub holds (5,000 open threads, a
// 1 MB comment, a log of any length). The machine keeps everything; what leaves the server is cut
// level by level until it fits: long lists are shortened with a count and a link, long texts are
// cut with a link to the whole. The monitor applies it to every action it hands out (monitor.step
// and monitor.pending), so whatever renders an action (a tool result, an elicitation form, a
// sampling prompt) gets a bounded one.

// MaxPayload is the most one action may weigh as the agent receives it (its JSON).
const MaxPayload = 16 << 10

// ActionBudget is an action's share of a tool result: the rest is the monitor id, the one-line
// summary and the next call to make.
const ActionBudget = MaxPayload - 2<<10

// StatusBudget is what each of a monitor's pending and last actions may weigh in a status result.
const StatusBudget = MaxPayload/2 - 1<<10

// limits is one level of cutting.
type limits struct {
	body    int // bytes of a comment, a review or a prior verdict
	tail    int // bytes of a log tail (its end is kept)
	text    int // bytes of other free text: an analysis, a note, the user's words
	list    int // entries of a list
	replies int // replies of a thread (the newest are kept)
}

var levels = []limits{
	{body: 6000, tail: 6000, text: 4000, list: 30, replies: 10},
	{body: 2500, tail: 3000, text: 2000, list: 15, replies: 5},
	{body: 1200, tail: 1500, text: 1200, list: 8, replies: 3},
	{body: 500, tail: 800, text: 600, list: 4, replies: 2},
	{body: 200, tail: 300, text: 300, list: 2, replies: 1},
}

// maxQuestion bounds a question's text. The machine builds questions a few kilobytes long at
// most; this only guards against a bug.
const maxQuestion = 6 << 10

// Bound returns act cut to fit budget bytes of JSON. The machine's copy is never changed, and
// neither is a server action (its reply body is what gets posted).
func Bound(act statemachine.Action, budget int) statemachine.Action {
	if act.Kind == statemachine.ActionServer {
		return act
	}
	if act.Question != nil {
		q := *act.Question
		q.Text = boundQuestion(q.Text)
		act.Question = &q
	}
	fit(budget, &act.Context, &act.Message, func() int { return JSONSize(act) })
	return act
}

// BoundOutput is bound for an action already rendered as a tool result.
func BoundOutput(out ActionOutput, budget int) ActionOutput {
	if out.Question != nil {
		q := *out.Question
		q.Text = boundQuestion(q.Text)
		out.Question = &q
	}
	fit(budget, &out.Context, &out.Message, func() int { return JSONSize(out) })
	return out
}

// fit cuts *ctx level by level until measure fits budget; at the last resort the context is
// replaced by a pointer to the pull request, and the message is cut.
func fit(budget int, ctx **statemachine.TaskContext, msg *string, measure func() int) {
	orig := *ctx
	if measure() <= budget {
		return
	}
	for _, l := range levels {
		if orig != nil {
			*ctx = cutContext(orig, l)
		}
		*msg = ClipProse(*msg, l.text)
		if measure() <= budget {
			return
		}
	}
	if orig != nil {
		pr := orig.PR
		pr.Title = statemachine.Untrusted(text.ClipBytes(string(pr.Title), 200))
		*ctx = &statemachine.TaskContext{PR: pr, Omitted: []string{
			"context: too large to send whole; read the pull request at " + orWhere(pr.URL)}}
	}
}

// boundQuestion guards the question's text. A cut never splits a fence: the text is kept up to
// the first fenced quote, with a pointer to the rest.
func boundQuestion(text string) string {
	if len(text) <= maxQuestion {
		return text
	}
	return ClipProse(text, maxQuestion/2) + "\n(The rest of this question is too long to show; see the pull request on GitHub.)"
}

// ClipProse shortens the server's text to n bytes without ever splitting a fenced quote: when it
// must cut, it keeps the text before the first quote.
func ClipProse(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, _, _ := strings.Cut(s, "<<<untrusted GitHub text ")
	return text.ClipBytes(head, n)
}

// cutContext returns a copy of c with its bodies, lists and texts cut to l, saying in Omitted
// what was cut and where to read it whole.
func cutContext(c *statemachine.TaskContext, l limits) *statemachine.TaskContext {
	out := *c
	var omitted []string
	note := func(format string, args ...any) { omitted = append(omitted, fmt.Sprintf(format, args...)) }
	prURL := orWhere(c.PR.URL)

	if c.Thread != nil {
		t := cutThread(*c.Thread, l, note)
		out.Thread = &t
	}
	out.Threads = cutList(c.Threads, l.list, "threads", prURL, note)
	for i := range out.Threads {
		out.Threads[i] = cutThread(out.Threads[i], l, note)
	}
	out.Reviews = cutList(c.Reviews, l.list, "reviews", prURL, note)
	for i := range out.Reviews {
		r := &out.Reviews[i]
		r.Body = cutBody(r.Body, l.body, "review "+r.ID, prURL, note)
	}
	out.FailedChecks = cutList(c.FailedChecks, l.list, "failed_checks", prURL+"/checks", note)
	out.CancelledChecks = cutList(c.CancelledChecks, l.list, "cancelled_checks", prURL+"/checks", note)
	out.Logs = cutList(c.Logs, l.list, "log_tails", prURL+"/checks", note)
	for i := range out.Logs {
		lg := &out.Logs[i]
		if len(lg.Tail) > l.tail {
			lg.Tail = statemachine.Untrusted(keepEnd(string(lg.Tail), l.tail))
			lg.Truncated = true
			note("log_tails[%d]: the last %d bytes of the log are shown; the whole log is behind its check's link in failed_checks", i, l.tail)
		}
	}
	if cl := c.Cluster; cl != nil {
		cc := *cl
		cc.NewThreads = cutList(cl.NewThreads, l.list, "cluster.new_threads", prURL, note)
		cc.Prior = cutList(cl.Prior, l.list, "cluster.prior", prURL, note)
		cc.Files = cutList(cl.Files, l.list, "cluster.files", prURL+"/files", note)
		cc.Rounds = cutList(cl.Rounds, l.list, "cluster.rounds", prURL, note)
		out.Cluster = &cc
	}
	if p := c.PriorAttempt; p != nil {
		pp := *p
		pp.Feedback = cutBody(p.Feedback, l.body, "prior_attempt.feedback", prURL, note)
		out.PriorAttempt = &pp
	}
	if f := c.Freeform; f != nil {
		ff := *f
		ff.Elicitation = elicitation.Elicited{Question: boundQuestion(f.Elicitation.Question), Choices: f.Elicitation.Choices}
		ff.UserReply.Text = cutText(f.UserReply.Text, l.text, "freeform.user_reply.text", note)
		if f.Thread != nil {
			t := cutThread(*f.Thread, l, note)
			ff.Thread = &t
		}
		ff.Checks = cutList(f.Checks, l.list, "freeform.failing_checks", prURL+"/checks", note)
		if a := f.Analysis; a != nil {
			aa := *a
			aa.Recommendation = cutText(a.Recommendation, l.text, "freeform.server_analysis.recommendation", note)
			aa.Findings = cutText(a.Findings, l.text, "freeform.server_analysis.investigation_findings", note)
			aa.SuggestedFix = cutText(a.SuggestedFix, l.text, "freeform.server_analysis.suggested_fix", note)
			ff.Analysis = &aa
		}
		out.Freeform = &ff
	}
	out.PR.Title = statemachine.Untrusted(text.ClipBytes(string(c.PR.Title), l.text))
	out.Recommendation = cutText(c.Recommendation, l.text, "recommendation", note)
	out.Findings = cutText(c.Findings, l.text, "findings", note)
	out.SuggestedFix = cutText(c.SuggestedFix, l.text, "suggested_fix", note)
	out.Note = ClipProse(c.Note, l.text)
	out.Omitted = append(append([]string(nil), c.Omitted...), omitted...)
	return &out
}

// cutThread cuts a thread's comment and replies (the newest replies are kept, each with half the
// room of the comment the thread is about).
func cutThread(t statemachine.ThreadContext, l limits, note func(string, ...any)) statemachine.ThreadContext {
	whole := orWhere(t.URL)
	t.Comment = cutBody(t.Comment, l.body, "thread "+t.ID+" comment", whole, note)
	if n := len(t.Replies); n > l.replies {
		note("thread %s: the newest %d of its %d replies are shown; all at %s", t.ID, l.replies, n, whole)
		t.Replies = t.Replies[n-l.replies:]
	}
	replies := make([]statemachine.CommentContext, len(t.Replies))
	for i, r := range t.Replies {
		r.Body = cutBody(r.Body, l.body/2, "a reply in thread "+t.ID, whole, note)
		replies[i] = r
	}
	t.Replies = replies
	return t
}

// cutList keeps the first n entries of a list, saying how many there are and where to see them.
func cutList[T any](list []T, n int, name, where string, note func(string, ...any)) []T {
	if len(list) <= n {
		return append([]T(nil), list...)
	}
	note("%s: the first %d of %d are shown; all at %s", name, n, len(list), where)
	return append([]T(nil), list[:n]...)
}

// cutBody cuts GitHub text to n bytes, saying where the whole is. The cut text stays fenced.
func cutBody(u statemachine.Untrusted, n int, what, whole string, note func(string, ...any)) statemachine.Untrusted {
	if len(u) <= n {
		return u
	}
	note("%s: the first %d of %d bytes are shown; the whole at %s", what, n, len(u), whole)
	return statemachine.Untrusted(text.ClipBytes(string(u), n))
}

// cutText cuts server or agent text to n bytes, noting it.
func cutText(s string, n int, what string, note func(string, ...any)) string {
	if len(s) <= n {
		return s
	}
	note("%s: the first %d of %d bytes are shown", what, n, len(s))
	return text.ClipBytes(s, n)
}

// keepEnd keeps the last n bytes of s, from a line start when there is one nearby.
func keepEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n + len("…\n")
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	if i := strings.IndexByte(s[start:], '\n'); i >= 0 && i < n/4 {
		start += i + 1
	}
	return "…\n" + s[start:]
}

func orWhere(url string) string {
	if url == "" {
		return "GitHub"
	}
	return url
}

// JSONSize is how many bytes v weighs as JSON.
func JSONSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

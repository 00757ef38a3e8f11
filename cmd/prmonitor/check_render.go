package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// labelWidth is the width of the label column of `check`'s table.
const labelWidth = 28

// shownCommits is how many of the newest commits the table lists.
const shownCommits = 5

// renderCheckJSON writes the report as one indented JSON object.
func renderCheckJSON(w io.Writer, r checkReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// renderCheckText writes the report as aligned sections for a human. Every string that came from
// GitHub is folded onto one line without control characters before it reaches the terminal.
func renderCheckText(w io.Writer, r checkReport) error {
	t := &textTable{}

	t.row(0, "pull request", r.PR+"  "+sanitize.Line(r.Title))
	t.row(0, "url", sanitize.Line(r.URL))
	t.row(0, "author", sanitize.Line(r.Author)+viewerNote(r))
	t.row(0, "head", fmt.Sprintf("%s @ %s → %s", sanitize.Line(r.HeadRef), text.ShortSHA(r.HeadSHA), sanitize.Line(r.BaseRef)))
	state := r.State
	if r.IsDraft {
		state += " (draft)"
	}
	t.row(0, "state", state)
	t.row(0, "mergeable", r.Mergeable+parenthesised("merge state", r.MergeStateStatus))
	t.row(0, "review decision", orNone(deref(r.ReviewDecision), "none (no required reviews)"))

	t.blank()
	t.row(0, "attention", attentionWords(r.Attention.Kind))
	t.row(1, "reason", sanitize.Line(r.Attention.Reason))

	t.blank()
	t.row(0, "needs_refine", fmt.Sprint(r.NeedsRefine))
	t.row(1, "reason", orNone(sanitize.Line(r.NeedsRefineReason), "-"))
	t.row(1, "last changes requested", timeOrNone(r.LastChangesRequestedAt))
	t.row(1, "last substantive commit", timeOrNone(r.LastSubstantiveCommitAt)+" (author date)")
	if r.RefineRound != "" {
		t.row(1, "round", sanitize.Line(r.RefineRound))
	}
	if r.RewrittenSinceReview {
		t.row(1, "rewritten since review", "yes: a rebase or amend after the request keeps old author dates")
	}

	t.blank()
	t.row(0, "reviews", fmt.Sprintf("%s with a verdict", text.Count(len(r.Reviews), "reviewer", "reviewers")))
	verdicts := make([][]string, 0, len(r.Reviews))
	for _, v := range r.Reviews {
		on := "on the head"
		if !v.OnHead {
			on = "on " + orNone(text.ShortSHA(v.CommitOID), "an older head")
		}
		verdicts = append(verdicts, []string{sanitize.Line(v.Reviewer), string(v.State), stamp(v.SubmittedAt), on})
	}
	t.list(1, "latest verdicts", verdicts)
	t.row(1, "changes requested by", names(r.ChangesRequestedBy))
	t.row(1, "approvals", names(r.Approvals))
	t.row(1, "stale approvals", names(r.StaleApprovals))
	t.row(1, "review requested from", names(r.PendingReviewRequests))
	if len(r.AwaitingReRequest) > 0 {
		t.row(1, "to ask for a re-review", names(r.AwaitingReRequest))
	}

	t.blank()
	shown := r.Commits[max(0, len(r.Commits)-shownCommits):]
	t.row(0, "commits", fmt.Sprintf("%d in the snapshot, newest %d:", len(r.Commits), len(shown)))
	commits := make([][]string, 0, len(shown))
	for i := len(shown) - 1; i >= 0; i-- {
		c := shown[i]
		commits = append(commits, []string{text.ShortSHA(c.OID), string(c.Kind), "authored " + stamp(c.AuthoredDate), text.ClipRunes(sanitize.Line(c.Headline), 60)})
	}
	t.list(1, "", commits)

	t.blank()
	t.row(0, "ci", fmt.Sprintf("%s: %d passed, %d failed, %d cancelled, %d pending",
		text.Count(r.CI.Total, "check", "checks"), r.CI.Passed, r.CI.Failed, r.CI.Cancelled, r.CI.Pending))
	t.list(1, "failed", checkRows(r.CI.FailedChecks))
	t.list(1, "cancelled", checkRows(r.CI.CancelledChecks))
	t.list(1, "pending", checkRows(r.CI.PendingChecks))

	t.blank()
	t.row(0, "threads", fmt.Sprintf("%d need%s action, %d reviewer replied, %d waiting for reply, %d resolved",
		r.Threads.NeedsAction, verbS(r.Threads.NeedsAction), r.Threads.ReviewerReplied, r.Threads.WaitingForReply, r.Threads.Resolved))
	byStatus := map[string][][]string{}
	for _, th := range r.Threads.Unresolved {
		where := sanitize.Line(th.Path)
		if th.Line > 0 {
			where += fmt.Sprintf(":%d", th.Line)
		}
		if th.IsOutdated {
			where += " (outdated)"
		}
		byStatus[th.Status] = append(byStatus[th.Status], []string{orNone(where, "(pull request)"), sanitize.Line(th.Reviewer), fmt.Sprintf("%q", th.Excerpt)})
	}
	t.list(1, "needs action", byStatus["needs_action"])
	t.list(1, "reviewer replied", byStatus["reviewer_replied"])
	t.list(1, "waiting for reply", byStatus["waiting_for_reply"])

	var also [][]string
	for _, a := range r.Attentions {
		if a.Kind != r.Attention.Kind {
			also = append(also, []string{attentionWords(a.Kind), sanitize.Line(a.Reason)})
		}
	}
	if len(also) > 0 {
		t.blank()
		t.row(0, "also matching", "in decision order, after the attention above:")
		t.list(1, "", also)
	}

	t.blank()
	t.row(0, "rate limit", fmt.Sprintf("%d of %d GraphQL points left, resets %s (this check cost %d)",
		r.RateLimit.Remaining, r.RateLimit.Limit, timeOrNone(utcPtr(&r.RateLimit.ResetAt)), r.RateLimit.Cost))

	_, err := w.Write(t.buf.Bytes())
	return err
}

// attentionWords is an attention in words, with the code --json carries: "merge conflict
// (merge_conflict)".
func attentionWords(k prstatus.AttentionKind) string { return k.Words() + " (" + string(k) + ")" }

// textTable writes "label  value" rows with the values aligned, and lists whose columns are
// aligned under their first row.
type textTable struct{ buf bytes.Buffer }

func (t *textTable) row(indent int, label, value string) {
	label = strings.Repeat("  ", indent) + label
	fmt.Fprintf(&t.buf, "%-*s %s\n", labelWidth-1, label, value)
}

func (t *textTable) blank() { t.buf.WriteByte('\n') }

// list writes rows of cells, aligned by column; label goes on the first row. An empty list is one
// row saying "-" (or nothing at all when label is empty).
func (t *textTable) list(indent int, label string, rows [][]string) {
	if len(rows) == 0 {
		if label != "" {
			t.row(indent, label, "-")
		}
		return
	}
	for i, line := range alignColumns(rows, "  ") {
		if i > 0 {
			label = ""
		}
		t.row(indent, label, line)
	}
}

func checkRows(cs []prstatus.CheckFact) [][]string {
	rows := make([][]string, 0, len(cs))
	for _, c := range cs {
		name := sanitize.Line(c.Name)
		if c.Workflow != "" {
			name = sanitize.Line(c.Workflow) + " / " + name
		}
		result := c.Result
		if c.Required {
			result += " (required)"
		}
		rows = append(rows, []string{name, result, orNone(sanitize.Line(c.URL), "no link")})
	}
	return rows
}

func viewerNote(r checkReport) string {
	if r.Viewer == "" || r.Viewer == r.Author {
		return ""
	}
	return " (you are " + sanitize.Line(r.Viewer) + ")"
}

func parenthesised(label, v string) string {
	if v == "" {
		return ""
	}
	return " (" + label + " " + v + ")"
}

func names(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	out := make([]string, len(s))
	for i, n := range s {
		out[i] = sanitize.Line(n)
	}
	return strings.Join(out, ", ")
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func timeOrNone(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return stamp(*t)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// verbS is the third-person "s" of a verb whose subject is n things: 1 needs, 2 need.
func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

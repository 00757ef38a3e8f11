package prstatus

import (
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Words renders an attention kind for a person to read: "merge conflict", not "merge_conflict".
// The kind itself stays the machine's value (JSON, keys, logs).
func (k AttentionKind) Words() string {
	w, _ := k.words()
	return w
}

// Known reports whether k is one of the attention kinds this build knows.
func (k AttentionKind) Known() bool {
	_, ok := k.words()
	return ok
}

func (k AttentionKind) words() (string, bool) {
	switch k {
	case AttentionMerged:
		return "merged", true
	case AttentionClosed:
		return "closed without merging", true
	case AttentionChangesRequested:
		return "changes requested", true
	case AttentionNewComments:
		return "new review comments", true
	case AttentionReviewerReplied:
		return "a reviewer replied", true
	case AttentionMergeConflict:
		return "merge conflict", true
	case AttentionCIFailed:
		return "checks failed", true
	case AttentionCICancelled:
		return "checks cancelled", true
	case AttentionMergeWhenReady:
		return "approved, required checks still running (auto-merge allowed)", true
	case AttentionCIPending:
		return "checks running", true
	case AttentionReadyToMerge:
		return "ready to merge", true
	case AttentionStaleApproval:
		return "approval on an older commit", true
	case AttentionNone, "":
		return "nothing to do yet", true
	}
	return "something new", false
}

// Words renders the checks' counts: "2 checks passed, 1 failed, 1 running" ("no checks" when
// there are none). Only the counts that are not zero are named; the first carries the noun.
func (c CIFacts) Words() string {
	if c.Total == 0 {
		return "no checks"
	}
	var parts []string
	failed := "failed"
	if c.FailingOnBaseOnly() {
		failed = "failed (on the base branch too: not this PR's)"
	}
	for _, p := range []struct {
		n    int
		verb string
	}{{c.Passed, "passed"}, {c.Failed, failed}, {c.Pending, "running"}, {c.Cancelled, "cancelled"}} {
		if p.n == 0 {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, text.Count(p.n, "check", "checks")+" "+p.verb)
		} else {
			parts = append(parts, itoa(int64(p.n))+" "+p.verb)
		}
	}
	if len(parts) == 0 {
		return text.Count(c.Total, "check", "checks")
	}
	return strings.Join(parts, ", ")
}

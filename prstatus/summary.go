package prstatus

import (
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// SummaryLine renders a pull request's state in one line: CI counts, reviews, threads, and what
// is awaited. Both front ends (the embedded MCP server and the team deployment's workflow) show
// it, so an agent reads the same line whichever serves it.
func SummaryLine(ref string, f *Facts) string {
	if f == nil {
		return ref + " · not polled yet"
	}
	parts := []string{ref}
	if f.StackedOn != nil {
		parts = append(parts, fmt.Sprintf("stacked on #%d (merges into its branch)", f.StackedOn.Number))
	}
	parts = append(parts, f.CI.Words())
	if len(f.Reviews.ChangesRequestedBy) > 0 {
		parts = append(parts, "changes requested by "+someNames(f.Reviews.ChangesRequestedBy))
	}
	if len(f.Reviews.Approvals) > 0 {
		parts = append(parts, "approved by "+someNames(f.Reviews.Approvals))
	}
	if n := len(f.Threads.NeedsAction) + len(f.Threads.ReviewerReplied); n > 0 {
		parts = append(parts, text.Count(n, "thread needs", "threads need")+" action")
	}
	if n := len(f.Threads.Waiting); n > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for a reviewer", n))
	}
	if n := len(f.Threads.FromOthers) + len(f.Reviews.FromOthers); n > 0 {
		parts = append(parts, fmt.Sprintf("%d from non-reviewers (not acted on)", n))
	}
	parts = append(parts, f.Attention.Kind.Words())
	return strings.Join(parts, " · ")
}

// someNames joins at most three logins and counts the rest: the summary stays one short line.
func someNames(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

package mcpserver

import (
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// notActedOnShown bounds the feedback of others a status shows, and each text.
const (
	notActedOnShown = 5
	notActedOnText  = 300
)

// notActedOn lists, newest page first as Derive found them, the reviews and threads of people who
// cannot review: labelled with who wrote them and how they relate to the repository, their text
// fenced. They are shown so the user can decide; the server never acts on them.
func notActedOn(f *prstatus.Facts) []OtherFeedback {
	var out []OtherFeedback
	for _, v := range f.Reviews.FromOthers {
		out = append(out, OtherFeedback{Author: v.Reviewer, Association: v.Association.Words(),
			Where: "a review (" + reviewStateWords(v.State) + ")", Text: fenceClipped(v.Body)})
	}
	for _, t := range f.Threads.FromOthers {
		first := t.First()
		out = append(out, OtherFeedback{Author: t.Reviewer, Association: first.AuthorAssociation.Words(),
			Where: "a thread on " + statemachine.Where(t.Path, t.Line), Text: fenceClipped(first.Body)})
	}
	if len(out) > notActedOnShown {
		out = out[:notActedOnShown]
	}
	return out
}

func fenceClipped(s string) string {
	return statemachine.Untrusted(clipText(s, notActedOnText)).Fenced()
}

// reviewStateWords is a review's state for a person to read.
func reviewStateWords(s prstatus.ReviewState) string {
	switch s {
	case prstatus.ReviewApproved:
		return "approved"
	case prstatus.ReviewChangesRequested:
		return "changes requested"
	case prstatus.ReviewDismissed:
		return "dismissed"
	}
	return "commented"
}

package mcpserver

import (
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
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
func notActedOn(f *prstatus.Facts) []contract.OtherFeedback {
	var out []contract.OtherFeedback
	for _, v := range f.Reviews.FromOthers {
		out = append(out, contract.OtherFeedback{Author: v.Reviewer, Association: v.Association.Words(),
			Where: "a review (" + reviewStateWords(v.State) + ")", Text: fenceClipped(v.Body)})
	}
	for _, t := range f.Threads.FromOthers {
		first := t.First()
		o := contract.OtherFeedback{Author: t.Reviewer, Association: first.AuthorAssociation.Words(), Where: "a thread on the pull request",
			Text: fenceClipped(first.Body)}
		if t.Path != "" { // a path is GitHub's name: a value of its own, fenced unless plainly a name
			o.Where, o.Path, o.Line = "a thread on a file", nameValue(t.Path), t.Line
		}
		out = append(out, o)
	}
	if len(out) > notActedOnShown {
		out = out[:notActedOnShown]
	}
	return out
}

// maxNameValue bounds a name from GitHub shown fenced as a value.
const maxNameValue = 200

// nameValue is a name from GitHub as a value of its own: as it is when plainly a name, else fenced
// (docs/security.md, "Identifiers are data").
func nameValue(n string) string {
	if sanitize.PlainName(n) {
		return n
	}
	return sanitize.Fence(text.ClipBytes(n, maxNameValue))
}

func fenceClipped(s string) string {
	return statemachine.Untrusted(text.ClipBytes(s, notActedOnText)).Fenced()
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

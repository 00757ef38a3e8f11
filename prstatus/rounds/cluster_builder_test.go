package rounds

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// past is a thread prmonitor answered in an earlier round: a reviewer's comment, then the PR's
// side's reply carrying the marker.
type past struct {
	id, path string
	line     int
	who      string // the reviewer; bob when empty
	body     string // the reviewer's comment
	asked    string // when the reviewer commented
	round    string
	replied  string // when prmonitor replied
	kind     prstatus.ReplyKind
	category Category // recorded in the marker; empty: none
	open     bool     // answered but not resolved (waiting for the reviewer)
	by       string   // who posted the marked reply; dev when empty
}

// prior adds a thread answered in an earlier round.
func (b *prBuilder) prior(p past) *prBuilder {
	reply := "Fixed.\n\n" + prstatus.Marker{Round: p.round, Thread: p.id, Kind: cmp.Or(p.kind, prstatus.ReplyAddressed), Category: string(p.category)}.String()
	return b.rawThread(prstatus.Thread{ID: p.id, Path: p.path, Line: p.line, IsResolved: !p.open},
		say{who: cmp.Or(p.who, "bob"), when: p.asked, body: p.body},
		say{who: cmp.Or(p.by, "dev"), when: p.replied, body: reply})
}

// fresh adds a new, unanswered thread.
func (b *prBuilder) fresh(id, path string, line int, who, when, body string) *prBuilder {
	return b.rawThread(prstatus.Thread{ID: id, Path: path, Line: line}, say{who: who, when: when, body: body})
}

// roundsPR is a PR with n earlier rounds of perRound validation threads each (round k answered
// on day k), and one new validation thread on day n+1. Ids have fixed widths, so PRs of
// different lengths compare by size fairly.
func roundsPR(n, perRound int) (*prBuilder, []string) {
	b := aPR()
	for r := range n {
		for i := range perRound {
			b.prior(past{
				id: fmt.Sprintf("PRRT_%02d_%02d", r, i), path: fmt.Sprintf("api/h%02d.go", i), line: 10 + i,
				who: "bob", body: "Validate the input: a negative limit " + strings.Repeat("is accepted here and breaks paging. ", 8),
				asked: fmt.Sprintf("+%dd 09:%02d", r, i), round: fmt.Sprintf("r%02d", r),
				replied: fmt.Sprintf("+%dd 11:%02d", r, i), category: CategoryValidation,
			})
		}
	}
	b.fresh("PRRT_new_00", "api/h00.go", 40, "bob", fmt.Sprintf("+%dd 09:00", n), "This still accepts an empty name; validate it.")
	return b, []string{"PRRT_new_00"}
}

package main

import (
	"flag"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// reviewBotsFlag registers --review-bots: the bots whose review feedback is acted on, besides the
// people who can review (OWNER, MEMBER, COLLABORATOR). Everyone else's feedback is shown only.
func reviewBotsFlag(fs *flag.FlagSet) *string {
	return fs.String("review-bots", strings.Join(prstatus.DefaultReviewBots(), ","),
		"comma-separated `LOGINS` of review bots whose feedback is acted on besides repository owners, members and "+
			"collaborators (\"\" for none); feedback from anyone else is shown, never acted on")
}

// parseReviewBots splits the flag's value: never nil, so "" means no bot at all.
func parseReviewBots(s string) []string {
	out := []string{}
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

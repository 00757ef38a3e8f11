package rounds

import "strings"

// isUs reports whether login speaks for the PR's side: the PR author or the token's user. It is
// the rule prstatus applies when it sorts threads and trusts a marker; rounds uses it to leave the
// PR's side out of feedback and verdicts.
func isUs(login, author, viewer string) bool {
	return login != "" && (strings.EqualFold(login, author) || strings.EqualFold(login, viewer))
}

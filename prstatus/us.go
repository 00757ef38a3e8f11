package prstatus

import "strings"

// IsUs reports whether login is the pull request's own side: its author or the token's user
// (prmonitor acts with that token, so its replies and requests are this login's). Logins are
// compared as GitHub compares them, case-insensitively, and an app's "name[bot]" (REST) is the
// same account as "name" (GraphQL). An empty login is nobody.
func IsUs(login, author, viewer string) bool {
	k := accountKey(login)
	return k != "" && (k == accountKey(author) || k == accountKey(viewer))
}

// accountKey folds a login to the account it names.
func accountKey(login string) string {
	return strings.TrimSuffix(strings.ToLower(login), "[bot]")
}

package prstatus

import "strings"

// dependencyBots are the accounts that open dependency-update pull requests, by login as GraphQL
// spells them (REST adds "[bot]"; the ingestion adds it for GraphQL bots too).
var dependencyBots = []string{"dependabot", "renovate", "dependabot-preview", "renovate-bot"}

// IsDependencyBot reports whether login (in either spelling, any case) is a bot that opens
// dependency updates: Dependabot or Renovate. Their pull requests are many and routine, so
// pr_monitor_start_all skips them unless asked.
func IsDependencyBot(login string) bool {
	l := strings.ToLower(strings.TrimSpace(login))
	l = strings.TrimPrefix(l, "app/")
	l = strings.TrimSuffix(l, "[bot]")
	for _, b := range dependencyBots {
		if l == b {
			return true
		}
	}
	return false
}

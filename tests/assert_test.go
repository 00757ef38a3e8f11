package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func requireThreadsResolved(t *testing.T, w *world, n int) {
	t.Helper()
	resolved := 0
	require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
		for _, th := range pr.Threads {
			if th.IsResolved {
				resolved++
			}
		}
	}))
	require.Equal(t, n, resolved)
}

// requireOneReplyPerThread: prmonitor never posts the same reply twice.
func requireOneReplyPerThread(t *testing.T, w *world) {
	t.Helper()
	require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
		for _, th := range pr.Threads {
			seen := map[string]bool{}
			for _, c := range th.Comments {
				m, ok := prstatus.ParseMarker(c.Body)
				if !ok {
					continue
				}
				key := m.Thread + "/" + m.Round + "/" + string(m.Kind)
				require.False(t, seen[key], "reply posted twice on %s", th.Path)
				seen[key] = true
			}
		}
	}))
}

func reviewRequests(w *world, login string) int {
	n := 0
	for _, r := range w.fake.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/requested_reviewers") && strings.Contains(r.Body, login) {
			n++
		}
	}
	return n
}

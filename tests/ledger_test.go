package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// ledger counts every request the server made on GitHub, by kind. Snapshots and the watcher's
// fingerprint requests (what polls are made of) are counted apart: their number depends on
// timing, and their cost is proven elsewhere (mcpserver, prstatus/watch).
func ledger(w *world) (writes map[string]int, snapshots int) { return ledgerOf(w.fake.Requests()) }

// ledgerOf is ledger over requests already read.
func ledgerOf(reqs []githubfake.Request) (writes map[string]int, snapshots int) {
	writes = map[string]int{}
	for _, r := range reqs {
		switch {
		case r.Kind == githubfake.KindGraphQL && r.Operation == githubfake.OpMutation:
			writes["mutation "+r.Mutation]++
		case r.Kind == githubfake.KindGraphQL:
			switch {
			case strings.Contains(r.Document, "reviewThreads("), strings.Contains(r.Document, "fragment fp on PullRequest"):
				snapshots++
			case strings.Contains(r.Document, "search("):
				writes["search open pull requests"]++
			case strings.Contains(r.Document, "PullRequestReviewThread"):
				writes["read thread (before replying)"]++
			case strings.Contains(r.Document, "viewer"):
				writes["read viewer"]++
			default:
				writes["read other: "+r.Document]++
			}
		case r.Kind == githubfake.KindDownload:
			writes["download log"]++
		case r.Method == "GET" && strings.HasSuffix(r.Path, "/logs"):
			writes["GET job log"]++
		case r.Method == "GET":
			writes["GET "+r.Path]++
		case strings.HasSuffix(r.Path, "/replies"):
			writes["POST reply"]++
		case strings.HasSuffix(r.Path, "/requested_reviewers"):
			writes["POST review request"]++
		case strings.HasSuffix(r.Path, "/merge"):
			writes["PUT merge"]++
		case strings.HasSuffix(r.Path, "/rerun-failed-jobs"):
			writes["POST rerun failed jobs"]++
		case strings.HasSuffix(r.Path, "/rerun"):
			writes["POST rerun"]++
		default:
			writes[r.Method+" "+r.Path]++
		}
	}
	return writes, snapshots
}

// requireNoToken sweeps everything the server produced: tool results, its stderr, and every file
// in its state directory.
func requireNoToken(t *testing.T, w *world) {
	t.Helper()
	w.mu.Lock()
	outputs := append([]string(nil), w.outputs...)
	w.mu.Unlock()
	for _, o := range outputs {
		require.NotContains(t, o, token, "a tool result carries the token")
	}
	require.NotContains(t, w.stderr.String(), token, "the server's log carries the token")
	files := 0
	require.NoError(t, filepath.WalkDir(w.stateDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		require.NotContains(t, string(b), token, "%s carries the token", path)
		return nil
	}))
	require.Positive(t, files, "the monitor was saved")
}

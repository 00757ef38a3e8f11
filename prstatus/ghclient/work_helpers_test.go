package ghclient_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Helpers of the server-side work tests (work_*_test.go).

// count is how many non-GraphQL requests with this method whose path ends with suffix left the
// client since the last reset (every attempt counts).
func (e *fakeEnv) count(method, suffix string) int {
	n := 0
	for _, c := range e.rec.calls() {
		if c.Method == method && strings.HasSuffix(c.Path, suffix) {
			n++
		}
	}
	return n
}

// queries and mutations count the GraphQL documents sent since the last reset.
func (e *fakeEnv) queries() int   { return e.graphQL(false) }
func (e *fakeEnv) mutations() int { return e.graphQL(true) }

func (e *fakeEnv) graphQL(mutation bool) int {
	n := 0
	for _, d := range e.rec.documents() {
		if strings.HasPrefix(strings.TrimSpace(d.Query), "mutation") == mutation {
			n++
		}
	}
	return n
}

// waited returns the sleeps the client asked for.
func (e *fakeEnv) waited() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Duration(nil), e.waits...)
}

// reset forgets what the client sent and waited.
func (e *fakeEnv) reset() {
	e.rec.reset()
	e.mu.Lock()
	e.waits = nil
	e.mu.Unlock()
}

// workPR opens a pull request by the viewer with one review thread from alice and one from
// Copilot, and a CI run whose "test" job failed.
func workPR(t *testing.T, e *fakeEnv) {
	t.Helper()
	e.apply(t,
		githubfake.OpenPR{Title: "Add widgets", Head: "widgets"},
		githubfake.ChecksQueued{Jobs: []string{"build", "test"}},
		githubfake.RequestChanges(alice, "Please fix.", githubfake.NewThread{Path: "w.go", Line: 3, Body: "This can be nil."}),
		githubfake.CommentReview(copilot, "", githubfake.NewThread{Path: "w.go", Line: 9, Body: "Consider a table test."}),
	)
	e.apply(t,
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
		githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure},
	)
	e.reset()
}

func thread(t *testing.T, e *fakeEnv, i int) githubfake.ThreadInfo {
	t.Helper()
	th, err := e.f.PR(githubfake.Ref(ref)).Thread(i)
	require.NoError(t, err)
	return th
}

// assertClean checks the invariants every work test shares: the token is in no error, nothing was
// closed or deleted.
func assertClean(t *testing.T, e *fakeEnv, err error) {
	t.Helper()
	if err != nil {
		assert.NotContains(t, err.Error(), fakeToken)
		assert.NotContains(t, err.Error(), "\n", "one-line errors")
	}
	assert.Empty(t, e.f.Forbidden(), "nothing closes a pull request or deletes a branch")
	assert.NotEqual(t, githubfake.PRStateClosed, e.f.PR(githubfake.Ref(ref)).State())
}

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// testToken is the secret every test hunts for in the output: it must never appear.
const testToken = "ghp_PRMONITORTESTSECRET0123456789abcdef"

// testNow is the wall clock of every test.
var testNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// testRef is the pull request the tests open on the fake.
var testRef = prstatus.PRRef{Owner: "octo", Repo: "widgets", Number: 7}

// cliResult is what one in-process run of the command printed.
type cliResult struct {
	code   int
	stdout string
	stderr string
}

// commandCall is one external command the CLI ran.
type commandCall struct {
	name string
	args []string
}

// testEnv builds the outside world of one run: vars are its environment variables; gh, when set,
// answers `gh` commands (otherwise gh "is not installed").
type testEnv struct {
	vars map[string]string
	gh   func(args []string) ([]byte, error)

	mu    sync.Mutex
	calls []commandCall
}

func (te *testEnv) env(stdout, stderr io.Writer) env {
	return env{
		Stdout: stdout,
		Stderr: stderr,
		Getenv: func(k string) string { return te.vars[k] },
		RunCommand: func(_ context.Context, name string, args ...string) ([]byte, error) {
			te.mu.Lock()
			te.calls = append(te.calls, commandCall{name: name, args: args})
			te.mu.Unlock()
			if name != "gh" || te.gh == nil {
				return nil, errors.New(name + " is not installed")
			}
			return te.gh(args)
		},
		Now:   func() time.Time { return testNow },
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}
}

func (te *testEnv) commands() []commandCall {
	te.mu.Lock()
	defer te.mu.Unlock()
	return append([]commandCall(nil), te.calls...)
}

// runCLI runs prmonitor in-process with args.
func runCLI(t *testing.T, te *testEnv, args ...string) cliResult {
	t.Helper()
	return runCLIWith(t, te, nil, args...)
}

// runCLIWith is runCLI with an HTTP transport under the GitHub client (nil: the default one).
func runCLIWith(t *testing.T, te *testEnv, transport http.RoundTripper, args ...string) cliResult {
	t.Helper()
	if te == nil {
		te = &testEnv{}
	}
	var stdout, stderr bytes.Buffer
	e := te.env(&stdout, &stderr)
	e.Transport = transport
	code := run(t.Context(), args, e)
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// withToken is an environment holding the test token.
func withToken() *testEnv {
	return &testEnv{vars: map[string]string{"GITHUB_TOKEN": testToken}}
}

// fakeGitHub is a simulated GitHub on a loopback port that accepts only testToken.
type fakeGitHub struct {
	*githubfake.Fake
	url string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken))
	url := f.Start()
	t.Cleanup(f.Close)
	return &fakeGitHub{Fake: f, url: url}
}

// play plays steps on testRef, each after its fake delay.
func (g *fakeGitHub) play(t *testing.T, steps ...githubfake.Step) {
	t.Helper()
	for i, s := range steps {
		require.NoError(t, g.PlayStep(githubfake.Ref(testRef), s), "step %d: %s", i, s.Describe())
	}
}

// at is a scenario step: events after d of fake time.
func at(d time.Duration, events ...githubfake.Event) githubfake.Step {
	return githubfake.Step{After: d, Events: events}
}

// matchGolden compares got with testdata/name, which PRMONITOR_UPDATE_GOLDEN=1 rewrites on
// purpose.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("PRMONITOR_UPDATE_GOLDEN") == "1" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with PRMONITOR_UPDATE_GOLDEN=1 to write %s", path)
	assert.Equal(t, string(want), got, "%s (PRMONITOR_UPDATE_GOLDEN=1 rewrites it after an intended change)", path)
}

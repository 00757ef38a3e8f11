package githubfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var (
	ref     = githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 7}
	dev     = githubfake.User("dev")
	alice   = githubfake.User("alice")
	bob     = githubfake.User("bob")
	copilot = githubfake.Bot("copilot-pull-request-reviewer")
)

const token = "test-token"

func newFake(t *testing.T, opts ...githubfake.Option) *githubfake.Fake {
	t.Helper()
	f, err := githubfake.New(append([]githubfake.Option{githubfake.WithViewer("dev")}, opts...)...)
	require.NoError(t, err)
	return f
}

// openPR gives the fake a typical PR: two commits, a CHANGES_REQUESTED review with two threads,
// a Copilot review with one thread, CI with a failed job and a status.
func openPR(t *testing.T, f *githubfake.Fake) {
	t.Helper()
	require.NoError(t, f.Apply(ref,
		githubfake.OpenPR{Author: dev, Title: "Add widgets", Body: "Adds widgets.", Head: "widgets", Commits: []githubfake.NewCommit{
			{Headline: "Add widget type"}, {Headline: "Add widget tests"},
		}},
		githubfake.ReviewRequested{Reviewers: []githubfake.Actor{alice, bob}, Teams: []githubfake.Team{{Org: "octo", Slug: "core"}}},
		githubfake.ChecksQueued{Workflow: "CI", Jobs: []string{"build", "test"}, Required: []string{"test"}},
	))
	f.Advance(10 * time.Minute)
	require.NoError(t, f.Apply(ref,
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
		githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure, Log: "--- FAIL: TestWidget\nwidget_test.go:12: boom\n"},
		githubfake.StatusReported{Context: "coverage", State: githubfake.StateSuccess, TargetURL: "https://cov.example.com/7"},
		githubfake.RequestChanges(alice, "Please fix the nil check.",
			githubfake.NewThread{Path: "widget.go", Line: 10, Body: "This can be nil."},
			githubfake.NewThread{Path: "widget.go", Line: 20, Body: "Rename this."}),
		githubfake.CommentReview(copilot, "Copilot reviewed 2 files.", githubfake.NewThread{Path: "widget_test.go", Line: 3, Body: "Consider a table test."}),
	))
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Type      string `json:"type"`
		Message   string `json:"message"`
		Path      []any  `json:"path"`
		Locations []struct {
			Line   int `json:"line"`
			Column int `json:"column"`
		} `json:"locations"`
	} `json:"errors"`
	status int
	header http.Header
}

func (r gqlResponse) messages() []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Message)
	}
	return out
}

// decode unmarshals data into v.
func (r gqlResponse) decode(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Data, v), string(r.Data))
}

func doGraphQL(t *testing.T, f *githubfake.Fake, query string, vars map[string]any) gqlResponse {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	resp, raw := doRaw(t, f, http.MethodPost, githubfake.InProcessURL+"/graphql", body, "Bearer "+token)
	var out gqlResponse
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	out.status = resp.StatusCode
	out.header = resp.Header
	return out
}

func doREST(t *testing.T, f *githubfake.Fake, method, path string, body any) (*http.Response, []byte) {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		raw, err = json.Marshal(body)
		require.NoError(t, err)
	}
	return doRaw(t, f, method, githubfake.InProcessURL+path, raw, "token "+token)
}

func doRaw(t *testing.T, f *githubfake.Fake, method, url string, body []byte, auth string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	client := f.HTTPClient()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, raw
}

func jsonMap(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), string(raw))
	return m
}

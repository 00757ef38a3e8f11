package webhook

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGitHubsPayloadsAreAnsweredForWhatTheyAreNeverWithA5xx replays payloads in GitHub's
// documented shapes (testdata/github, one file per delivery, named EVENT.ACTION...; fields this
// receiver does not read included, old shapes too), each signed as GitHub signs it, and checks
// each answer; then replays each again under a new delivery id.
func TestGitHubsPayloadsAreAnsweredForWhatTheyAreNeverWithA5xx(t *testing.T) {
	want := map[string]struct {
		status  int
		outcome string
		signals []signal
	}{
		"check_run.completed.json":                 {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "check_run.completed", false, ""}}},
		"check_run.rerequested.old-app-times.json": {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "check_run.rerequested", false, ""}}},
		"check_suite.completed.not-visible.json":   {http.StatusOK, "not-visible", nil},
		"installation.created.json":                {http.StatusOK, "not-handled", nil},
		"issue_comment.created.issue.json":         {http.StatusOK, "no-monitor", nil},
		"issue_comment.created.pull_request.json":  {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "issue_comment.created", false, ""}}},
		"ping.json":                                {http.StatusOK, "not-handled", nil},
		"pull_request.closed.json":                 {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "pull_request.closed", false, ""}}},
		"pull_request.opened.json":                 {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "pull_request.opened", true, "id:1001"}}},
		"pull_request.opened.replayed.json":        {http.StatusUnprocessableEntity, "stale", nil},
		"pull_request.synchronize.fork.json":       {http.StatusOK, "no-monitor", nil},
		"pull_request_review.submitted.json":       {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "pull_request_review.submitted", false, ""}}},
		"pull_request_review_comment.created.json": {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "pull_request_review_comment.created", false, ""}}},
		"pull_request_review_thread.resolved.json": {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "pull_request_review_thread.resolved", false, ""}}},
		"push.json":                  {http.StatusOK, "not-handled", nil},
		"status.json":                {http.StatusAccepted, "signalled", []signal{{"acme/widgets#7", "status.failure", false, ""}}},
		"status.unknown-commit.json": {http.StatusOK, "not-visible", nil},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "github", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, len(want), "every recorded payload has its expected answer")

	pulls := func(_ context.Context, owner, repo, sha string) ([]int, error) {
		switch {
		case repo != "widgets":
			return nil, fmt.Errorf("%w: HTTP 404", ErrNotVisible)
		case sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821":
			return []int{7}, nil
		}
		return nil, fmt.Errorf("%w: HTTP 422: No commit found for SHA", ErrNotVisible)
	}
	m := &monitors{running: map[string]bool{"acme/widgets#7": true}}
	now := time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC)
	h, err := New(Config{Secret: secret, Monitors: m, Pulls: pulls, Now: func() time.Time { return now }})
	require.NoError(t, err)

	answers := map[string]int{}
	for i, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			require.NoError(t, err)
			event, _, _ := strings.Cut(name, ".")
			m.got = nil
			w := serve(h, delivery{event: event, id: fmt.Sprintf("72d3162e-cc78-11e3-81ab-%012d", i), body: string(body)}.request())
			exp := want[name]
			assert.Equal(t, exp.status, w.Code, w.Body.String())
			assert.Equal(t, exp.outcome, w.Header().Get(OutcomeHeader))
			assert.Equal(t, exp.signals, m.got)
			answers[fmt.Sprintf("%d %s", w.Code, w.Header().Get(OutcomeHeader))]++

			m.got = nil
			again := serve(h, delivery{event: event, id: fmt.Sprintf("replayed-%d", i), body: string(body)}.request())
			assert.Less(t, again.Code, http.StatusInternalServerError)
			if exp.status < 300 && exp.outcome != "not-handled" {
				assert.Equal(t, "duplicate", again.Header().Get(OutcomeHeader), "the same signed body under a new delivery id")
			}
			assert.Empty(t, m.got, "a replay signals nothing")
		})
	}
	t.Logf("%d recorded payloads replayed signed: %v", len(files), answers)
}

// TestTheOldCheckRunShapeIsOneADecoderOfWholeObjectsRefuses keeps the recorded payload honest: the
// check_run whose App carries an older time format is one that go-github's full decoding fails on
// (the reason every redelivery of it used to fail), and the receiver reads it all the same.
func TestTheOldCheckRunShapeIsOneADecoderOfWholeObjectsRefuses(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "github", "check_run.rerequested.old-app-times.json"))
	require.NoError(t, err)
	_, err = github.ParseWebHook("check_run", body)
	require.Error(t, err, "go-github decodes every field")
	p, err := decode(body)
	require.NoError(t, err)
	require.NotNil(t, p.CheckRun)
	assert.Equal(t, "ec26c3e57ca3a959ca5aad62de7213c562f8c821", p.CheckRun.HeadSHA)
}

func TestATimeInAnyOfGitHubsFormatsOrNoneIsReadWithoutFailing(t *testing.T) {
	want := time.Date(2019, 5, 15, 15, 20, 33, 0, time.UTC)
	for _, raw := range []string{`"2019-05-15T15:20:33Z"`, `"2019-05-15T08:20:33-07:00"`, `1557933633`, `"1557933633"`,
		`"2019-05-15 15:20:33 UTC"`, `"2019/05/15 08:20:33 -0700"`, `"2019-05-15T15:20:33"`} {
		var s stamp
		require.NoError(t, s.UnmarshalJSON([]byte(raw)))
		assert.True(t, want.Equal(s.Time), "%s read as %v", raw, s.Time)
	}
	for _, raw := range []string{`null`, `""`, `"soon"`, `{"at":1}`, `[1]`, `true`} {
		var s stamp
		require.NoError(t, s.UnmarshalJSON([]byte(raw)))
		assert.True(t, s.IsZero(), raw)
	}
}

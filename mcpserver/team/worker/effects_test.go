package worker

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

func TestWorkGitHubHoldsBackIsAnErrorThatKeepsGitHubsWaitAndWorkItRefusesIsTheMachinesInput(t *testing.T) {
	status := http.StatusTooManyRequests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "3600")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"message":"no"}`))
	}))
	defer srv.Close()
	c, err := ghclient.New(ghclient.Config{RESTURL: srv.URL, Token: ghclient.NewToken("ghp_effects0123456789")})
	require.NoError(t, err)
	work := gitHubWork{gh: Static(c), now: time.Now}
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	req := statemachine.ServerRequest{Kind: statemachine.ServerRequestReview, Describe: "ask bob to review again", Reviewers: []string{"bob"}}

	_, err = work.Perform(context.Background(), ref, req, prstatus.DefaultReviewerPolicy())
	var rl *ghclient.RateLimitError
	require.True(t, errors.As(err, &rl), "postponed by GitHub: %v", err)
	assert.Equal(t, time.Hour, rl.RetryAfter, "the activity's retry waits what GitHub asked")

	_, err = work.Perform(context.Background(), ref, req, prstatus.DefaultReviewerPolicy())
	require.True(t, errors.As(err, &rl) && rl.HeldBack, "and nothing goes out before then: %v", err)

	status = http.StatusUnprocessableEntity
	c, err = ghclient.New(ghclient.Config{RESTURL: srv.URL, Token: ghclient.NewToken("ghp_effects0123456789")})
	require.NoError(t, err)
	work.gh = Static(c)
	in, err := work.Perform(context.Background(), ref, req, prstatus.DefaultReviewerPolicy())
	require.NoError(t, err, "a refusal is GitHub's verdict, not an error to retry")
	require.Equal(t, statemachine.InputOutcome, in.Kind)
	assert.False(t, in.Outcome.OK)
}

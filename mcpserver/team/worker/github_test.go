package worker

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/webhook"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// TestACommitGitHubWillNotShowIsNotVisibleNotAFailure: the "pull requests of a commit" lookup's
// 404, 403 and 422 are ErrNotVisible (the webhook answers "nothing to signal", which redelivery
// would not change); GitHub unavailable or a rate limit stays an error worth another try.
func TestACommitGitHubWillNotShowIsNotVisibleNotAFailure(t *testing.T) {
	tests := []struct {
		status     int
		notVisible bool
	}{
		{http.StatusNotFound, true},
		{http.StatusForbidden, true},
		{http.StatusUnprocessableEntity, true},
		{http.StatusTooManyRequests, false},
		{http.StatusBadGateway, false},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tt.status == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "60")
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(`{"message":"no"}`))
			}))
			defer srv.Close()
			c, err := ghclient.New(ghclient.Config{RESTURL: srv.URL, Token: ghclient.NewToken("ghp_pulls0123456789"),
				Retry: ghclient.RetryPolicy{MaxAttempts: 1}})
			require.NoError(t, err)
			_, err = pullsForCommit(Static(c))(context.Background(), "acme", "widgets", "0123456789abcdef0123456789abcdef01234567")
			require.Error(t, err)
			assert.Equal(t, tt.notVisible, errors.Is(err, webhook.ErrNotVisible), "%v", err)
		})
	}
}

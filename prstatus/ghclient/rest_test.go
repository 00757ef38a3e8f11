package ghclient

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// TestRESTLeavesRateLimitsToTheGate: after an answer that used the last point, go-github's own
// check would refuse the next call without sending it; the client's go-github leaves the decision
// to the transport's Gate, which waits out the short hold and sends.
func TestRESTLeavesRateLimitsToTheGate(t *testing.T) {
	now := time.Unix(time.Now().Unix(), 0) // go-github's own check reads the wall clock
	reset := now.Add(5 * time.Second)
	var calls atomic.Int32
	c, sl, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Ratelimit-Limit", "5000")
		w.Header().Set("X-Ratelimit-Remaining", "0")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.Header().Set("X-Ratelimit-Resource", "core")
		writeJSON(w, http.StatusOK, map[string]any{"login": "me"})
	}), func(cfg *Config) { cfg.Now = func() time.Time { return now } })

	for range 2 {
		u, resp, err := c.REST().Users.Get(t.Context(), "")
		require.NoError(t, c.restError(t.Context(), resp, err))
		assert.Equal(t, "me", u.GetLogin())
	}
	assert.Equal(t, int32(2), calls.Load(), "the second call was sent")
	assert.Equal(t, []time.Duration{5 * time.Second}, sl.recorded(), "after the gate held it until the reset")
}

// TestRESTFollowsNoRedirect: a write answered with a redirect is not re-sent to the new place.
func TestRESTFollowsNoRedirect(t *testing.T) {
	var moved atomic.Int32
	c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			moved.Add(1)
			writeJSON(w, http.StatusCreated, map[string]any{})
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	err := c.RequestReviews(t.Context(), prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}, []string{"alice"})
	var st *RESTStatusError
	require.ErrorAs(t, err, &st)
	assert.Equal(t, http.StatusTemporaryRedirect, st.Status)
	assert.Zero(t, moved.Load())
}

// TestRESTError: what go-github returns becomes the package's errors.
func TestRESTError(t *testing.T) {
	c, _, _ := testClient(t, http.HandlerFunc(status(200)))
	answer := func(code int) *github.Response {
		return &github.Response{Response: &http.Response{StatusCode: code}}
	}
	refusal := func(code int, msg string, details ...github.Error) error {
		return &github.ErrorResponse{Response: &http.Response{StatusCode: code}, Message: msg, Errors: details}
	}
	tests := []struct {
		name    string
		resp    *github.Response
		err     error
		wantIs  error
		want    *RESTStatusError
		wantMsg string
	}{
		{name: "nil", err: nil},
		{
			name: "a 422 with GitHub's details, one line, without the token",
			resp: answer(422),
			err: refusal(422, "Validation Failed\nsee below",
				github.Error{Resource: "PullRequest", Field: "base", Code: "invalid"},
				github.Error{Message: "token " + testToken + " is not a reviewer"}),
			want: &RESTStatusError{Status: 422, Message: "Validation Failed see below; PullRequest base invalid; token " + redacted + " is not a reviewer"},
		},
		{name: "a 409 without a message", resp: answer(409), err: refusal(409, ""), want: &RESTStatusError{Status: 409}, wantMsg: "GitHub answered HTTP 409"},
		{name: "a redirect", resp: answer(301), err: &github.RedirectionError{StatusCode: 301}, want: &RESTStatusError{Status: 301, Message: "an unexpected redirect"}},
		{name: "a 202", resp: answer(202), err: &github.AcceptedError{}, want: &RESTStatusError{Status: 202, Message: "accepted, not done yet"}},
		{
			name: "a success whose answer cannot be read may have been acted on", resp: answer(201),
			err: json.Unmarshal([]byte("{cut"), &struct{}{}), wantIs: ErrUnavailable, wantMsg: "HTTP 201 answer unreadable",
		},
		{name: "the transport's typed error passes", err: newAPIError(ErrNotFound, Token{}, "Not Found", nil), wantIs: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.restError(t.Context(), tt.resp, tt.err)
			if tt.err == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assertCleanError(t, err)
			if tt.want != nil {
				var st *RESTStatusError
				require.ErrorAs(t, err, &st)
				assert.Equal(t, tt.want, st)
			}
			if tt.wantIs != nil {
				require.ErrorIs(t, err, tt.wantIs)
			}
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

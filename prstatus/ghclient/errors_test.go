package ghclient

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// noRetry makes every request a single attempt, to look at classification alone.
func noRetry(c *Config) { c.Retry.MaxAttempts = 1 }

func TestClassifyREST(t *testing.T) {
	reset := testNow.Add(30 * time.Second)
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		wantIs     error
		wantRL     *RateLimitError
		wantInMsg  string
		wantPassed bool // the response reaches the caller untouched
	}{
		{name: "200 passes", status: 200, body: `{"ok":true}`, wantPassed: true},
		{name: "304 passes", status: 304, wantPassed: true},
		{name: "400 passes", status: 400, body: `{"message":"Problems parsing JSON"}`, wantPassed: true},
		{name: "422 passes for go-github to parse", status: 422, body: `{"message":"Validation Failed"}`, wantPassed: true},
		{name: "401", status: 401, body: `{"message":"Bad credentials"}`, wantIs: ErrUnauthorized, wantInMsg: "Bad credentials"},
		{name: "403 permission", status: 403, body: `{"message":"Resource not accessible by integration"}`, wantIs: ErrForbidden, wantInMsg: "Resource not accessible by integration"},
		{
			name: "403 primary limit exhausted", status: 403, body: `{"message":"API rate limit exceeded for user ID 1."}`,
			header: map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Limit": "5000", "X-Ratelimit-Reset": strconv.FormatInt(reset.Unix(), 10)},
			wantIs: ErrRateLimited, wantRL: &RateLimitError{ResetAt: reset, RetryAfter: 30 * time.Second, Message: "API rate limit exceeded for user ID 1."},
		},
		{
			name: "403 secondary limit with Retry-After", status: 403, body: `{"message":"You have exceeded a secondary rate limit."}`,
			header: map[string]string{"Retry-After": "60", "X-Ratelimit-Remaining": "4000"},
			wantIs: ErrRateLimited, wantRL: &RateLimitError{RetryAfter: time.Minute, Secondary: true, Message: "You have exceeded a secondary rate limit."},
		},
		{
			name: "403 secondary limit by wording only", status: 403, body: `{"message":"You have exceeded a secondary rate limit. Please wait."}`,
			wantIs: ErrRateLimited, wantRL: &RateLimitError{RetryAfter: time.Minute, Secondary: true, Message: "You have exceeded a secondary rate limit. Please wait."},
		},
		{name: "429 without headers", status: 429, wantIs: ErrRateLimited, wantRL: &RateLimitError{RetryAfter: time.Minute, Secondary: true}},
		{
			name: "429 with an HTTP-date Retry-After", status: 429,
			header: map[string]string{"Retry-After": testNow.Add(2 * time.Minute).Format(http.TimeFormat)},
			wantIs: ErrRateLimited, wantRL: &RateLimitError{RetryAfter: 2 * time.Minute, Secondary: true},
		},
		{name: "404", status: 404, body: `{"message":"Not Found"}`, wantIs: ErrNotFound, wantInMsg: "Not Found"},
		{name: "500", status: 500, wantIs: ErrUnavailable, wantInMsg: "HTTP 500"},
		{name: "502 HTML page", status: 502, body: "<html>\n<body>Bad gateway</body></html>", wantIs: ErrUnavailable, wantInMsg: "HTTP 502"},
		{name: "503", status: 503, body: `{"message":"Service unavailable"}`, wantIs: ErrUnavailable, wantInMsg: "HTTP 503: Service unavailable"},
		{name: "504", status: 504, wantIs: ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}), noRetry)
			resp, err := c.HTTPClient().Get(srv.URL + "/repos/o/r/pulls/1")
			if tt.wantPassed {
				require.NoError(t, err)
				defer resp.Body.Close()
				assert.Equal(t, tt.status, resp.StatusCode)
				b, _ := io.ReadAll(resp.Body)
				assert.Equal(t, tt.body, string(b))
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, tt.wantIs)
			assertCleanError(t, err)
			if tt.wantInMsg != "" {
				assert.Contains(t, err.Error(), tt.wantInMsg)
			}
			if tt.wantRL != nil {
				var rl *RateLimitError
				require.ErrorAs(t, err, &rl)
				assert.Equal(t, tt.wantRL, rl)
			}
			for _, other := range []error{ErrUnauthorized, ErrForbidden, ErrNotFound, ErrUnavailable, ErrRateLimited} {
				if other != tt.wantIs {
					assert.NotErrorIs(t, err, other)
				}
			}
		})
	}
}

func TestClassifyGraphQL(t *testing.T) {
	reset := testNow.Add(10 * time.Minute)
	gqlErr := func(typ, msg string) string {
		if typ == "" {
			return `{"data":null,"errors":[{"message":"` + msg + `"}]}`
		}
		return `{"data":null,"errors":[{"type":"` + typ + `","path":["repository"],"message":"` + msg + `"}]}`
	}
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		wantIs     error
		wantRL     *RateLimitError
		wantInMsg  string
		wantPassed bool
	}{
		{name: "data passes", status: 200, body: `{"data":{"viewer":{"login":"me"}}}`, wantPassed: true},
		{name: "a comment saying errors passes", status: 200, body: `{"data":{"viewer":{"login":"\"errors\""}}}`, wantPassed: true},
		{name: "other GraphQL errors pass to githubv4", status: 200, body: gqlErr("", "Field 'x' doesn't exist on type 'Query'"), wantPassed: true},
		{name: "NOT_FOUND with HTTP 200", status: 200, body: gqlErr("NOT_FOUND", "Could not resolve to a Repository with the name 'o/r'."), wantIs: ErrNotFound, wantInMsg: "Could not resolve to a Repository"},
		{name: "FORBIDDEN", status: 200, body: gqlErr("FORBIDDEN", "Resource not accessible by integration"), wantIs: ErrForbidden},
		{name: "INSUFFICIENT_SCOPES", status: 200, body: gqlErr("INSUFFICIENT_SCOPES", "Your token has not been granted the required scopes"), wantIs: ErrForbidden},
		{
			name: "RATE_LIMITED with HTTP 200", status: 200, body: gqlErr("RATE_LIMITED", "API rate limit exceeded for user ID 1."),
			header: map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": strconv.FormatInt(reset.Unix(), 10)},
			wantIs: ErrRateLimited, wantRL: &RateLimitError{ResetAt: reset, RetryAfter: 10 * time.Minute, Message: "API rate limit exceeded for user ID 1."},
		},
		{
			name: "RATE_LIMITED without headers", status: 200, body: gqlErr("RATE_LIMITED", "slow down"),
			wantIs: ErrRateLimited, wantRL: &RateLimitError{RetryAfter: time.Minute, Secondary: true, Message: "slow down"},
		},
		{name: "GitHub's transient failure", status: 200, body: gqlErr("", "Something went wrong while executing your query. This may be the result of a timeout."), wantIs: ErrUnavailable},
		{name: "401", status: 401, body: `{"message":"Bad credentials"}`, wantIs: ErrUnauthorized},
		{name: "502", status: 502, wantIs: ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}), noRetry)
			resp, err := c.HTTPClient().Post(c.Endpoints().GraphQL, "application/json", strings.NewReader(queryBody))
			if tt.wantPassed {
				require.NoError(t, err)
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				assert.Equal(t, tt.body, string(b), "the body is put back for githubv4's decoder")
				assert.Equal(t, int64(len(tt.body)), resp.ContentLength)
				return
			}
			require.ErrorIs(t, err, tt.wantIs)
			assertCleanError(t, err)
			if tt.wantInMsg != "" {
				assert.Contains(t, err.Error(), tt.wantInMsg)
			}
			if tt.wantRL != nil {
				var rl *RateLimitError
				require.ErrorAs(t, err, &rl)
				assert.Equal(t, tt.wantRL, rl)
			}
		})
	}
}

func TestSnapshotErrorsAreTyped(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		wantIs error
		want   string
	}{
		{"missing PR", 200, `{"data":{"repository":{"pullRequest":null}},"errors":[{"type":"NOT_FOUND","path":["repository","pullRequest"],"message":"Could not resolve to a PullRequest with the number of 9."}]}`,
			ErrNotFound, "snapshot o/r#9: not found on GitHub (or not visible to this token): Could not resolve to a PullRequest with the number of 9."},
		{"missing PR without an error entry", 200, `{"data":{"repository":{"pullRequest":null},"viewer":{"login":"me"},"rateLimit":null}}`,
			ErrNotFound, "snapshot o/r#9: not found on GitHub (or not visible to this token): no pull request o/r#9"},
		{"bad token", 401, `{"message":"Bad credentials"}`, ErrUnauthorized,
			"snapshot o/r#9: GitHub rejected the token (401): it is invalid, expired or revoked: Bad credentials"},
		{"outage", 503, ``, ErrUnavailable, "snapshot o/r#9: GitHub is unavailable: HTTP 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}), noRetry)
			_, err := c.Snapshot(t.Context(), prstatus.PRRef{Owner: "o", Repo: "r", Number: 9})
			require.ErrorIs(t, err, tt.wantIs)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestSnapshotRejectsBadRef(t *testing.T) {
	c, _, _ := testClient(t, http.NotFoundHandler())
	for _, ref := range []prstatus.PRRef{{}, {Owner: "o", Repo: "r"}, {Owner: "o", Number: 1}, {Owner: "o", Repo: "r", Number: -1}} {
		_, err := c.Snapshot(t.Context(), ref)
		assert.ErrorIs(t, err, prstatus.ErrBadRef)
	}
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b c", oneLine("a\n b\r\n\tc\x00"))
	assert.Equal(t, "x", oneLine("x\u202E"))
	long := oneLine(strings.Repeat("é", 400))
	assert.LessOrEqual(t, len(long), maxDetail+len("…"))
	assert.True(t, strings.HasSuffix(long, "…"))
	assert.True(t, utf8Valid(long))
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// assertCleanError checks the promises every error makes: one line, no token.
func assertCleanError(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	assert.NotContains(t, msg, testToken)
	assert.NotContains(t, msg, "\n")
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		return
	}
	assert.NotContains(t, rl.Message, testToken)
}

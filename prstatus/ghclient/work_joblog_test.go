package ghclient_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// numberedLog is n Actions log lines "line 000001" .. with timestamps and colour.
func numberedLog(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "2026-11-21T12:00:00.1234567Z \x1b[36mline\x1b[0m %06d\n", i)
	}
	return b.String()
}

// failWith completes the "test" job with log and returns its job id.
func failWith(t *testing.T, e *fakeEnv, log string) int64 {
	t.Helper()
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	e.apply(t, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure, Log: log})
	c, err := e.f.PR(githubfake.Ref(ref)).Check("test")
	require.NoError(t, err)
	e.reset()
	return c.JobID
}

// downloads are the requests to the log host.
func (e *fakeEnv) downloads() []wireCall {
	var out []wireCall
	for _, c := range e.rec.calls() {
		if strings.Contains(c.Path, "/_githubfake/logs/") {
			out = append(out, c)
		}
	}
	return out
}

func TestJobLogTail(t *testing.T) {
	const (
		logsAPI = "/repos/*/*/actions/jobs/*/logs"
		failure = "2026-11-21T12:00:00.0000000Z ##[group]Run go test\n" +
			"2026-11-21T12:00:01.0000000Z \x1b[31m--- FAIL: TestWidget\x1b[0m\u200b\n" +
			"2026-11-21T12:00:01.0000000Z     widget_test.go:12: got \u202enil\u202c\r\n" +
			"2026-11-21T12:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
		cleaned = "##[group]Run go test\n--- FAIL: TestWidget\n    widget_test.go:12: got nil\n##[error]Process completed with exit code 1."
	)
	expire := githubfake.Fault{Match: githubfake.MatchDownload(), Status: 403, Message: "AuthenticationFailed: Signature not valid in the specified time frame", Times: 1}
	tests := []struct {
		name      string
		log       string
		maxBytes  int
		faults    []githubfake.Fault
		jobID     int64
		want      string // exact text, when set
		truncated bool
		wantErr   error
		errText   string
		apiCalls  int
		downloads int
	}{
		{name: "a short log, whole and clean", log: failure, maxBytes: 4096, want: cleaned, apiCalls: 1, downloads: 1},
		{
			name: "a longer log: its tail, at a line boundary", log: numberedLog(300), maxBytes: 120,
			want: strings.TrimSuffix(strings.Join(linesFrom(291, 300), "\n"), "\n"), truncated: true, apiCalls: 1, downloads: 1,
		},
		{name: "an expired link is fetched again once", log: failure, maxBytes: 4096, faults: []githubfake.Fault{expire}, want: cleaned, apiCalls: 2, downloads: 2},
		{name: "a gone link too", log: failure, maxBytes: 4096, faults: []githubfake.Fault{{Match: githubfake.MatchDownload(), Status: 410, Times: 1}}, want: cleaned, apiCalls: 2, downloads: 2},
		{name: "a missing link too", log: failure, maxBytes: 4096, faults: []githubfake.Fault{{Match: githubfake.MatchDownload(), Status: 404, Times: 1}}, want: cleaned, apiCalls: 2, downloads: 2},
		{
			name: "expired twice: an error", log: failure, maxBytes: 4096, faults: []githubfake.Fault{{Match: githubfake.MatchDownload(), Status: 403, Message: "AuthenticationFailed", Times: 2}},
			errText: "the log download link expired or was refused (HTTP 403 from the log host)", apiCalls: 2, downloads: 2,
		},
		{
			name: "a 502 from the log host is retried on the same link", log: failure, maxBytes: 4096,
			faults: []githubfake.Fault{{Match: githubfake.MatchDownload(), Status: 502, Times: 1}}, want: cleaned, apiCalls: 1, downloads: 2,
		},
		{
			name: "a 502 from the API is retried", log: failure, maxBytes: 4096,
			faults: []githubfake.Fault{{Match: githubfake.MatchREST("GET", logsAPI), Status: 502, Times: 1}}, want: cleaned, apiCalls: 2, downloads: 1,
		},
		{
			name: "a dropped download is retried", log: failure, maxBytes: 4096,
			faults: []githubfake.Fault{{Match: githubfake.MatchDownload(), Drop: true, Times: 1}}, want: cleaned, apiCalls: 1, downloads: 2,
		},
		{name: "an unknown job", log: failure, maxBytes: 4096, jobID: 99999, wantErr: ghclient.ErrNotFound, apiCalls: 1},
		{
			name: "a forbidden API call is not a link problem", log: failure, maxBytes: 4096,
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("GET", logsAPI), Status: 403, Message: "Must have admin rights to Repository."}},
			wantErr: ghclient.ErrForbidden, errText: "Must have admin rights", apiCalls: 1,
		},
		{name: "maxBytes must be positive", log: failure, maxBytes: 0, errText: "maxBytes must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			job := failWith(t, e, tt.log)
			if tt.jobID != 0 {
				job = tt.jobID
			}
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			tail, err := e.c.JobLogTail(t.Context(), ref, job, tt.maxBytes)
			assertClean(t, e, err)
			if tt.wantErr != nil || tt.errText != "" {
				require.Error(t, err)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
				assert.Contains(t, err.Error(), tt.errText)
				assert.NotContains(t, err.Error(), "/_githubfake/logs/", "the signed URL stays out of errors")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.want, tail.Text)
				assert.Equal(t, tt.truncated, tail.Truncated)
				assert.Equal(t, int64(len(tt.log)), tail.Bytes)
				assert.LessOrEqual(t, len(tail.Text), tt.maxBytes)
			}
			assert.Equal(t, tt.apiCalls, e.count(http.MethodGet, "/logs"), "API calls")
			assert.Len(t, e.downloads(), tt.downloads, "downloads")
			api, err := url.Parse(e.c.Endpoints().REST)
			require.NoError(t, err)
			for _, d := range e.downloads() {
				assert.False(t, d.Auth, "the token never goes to the log host")
				assert.NotEqual(t, api.Host, d.Host, "the log host is another host")
			}
			for _, r := range e.f.Requests() {
				if r.Kind == githubfake.KindDownload {
					assert.False(t, r.Auth, "the log host saw no Authorization header")
				}
			}
		})
	}
}

func linesFrom(first, last int) []string {
	var out []string
	for i := first; i <= last; i++ {
		out = append(out, fmt.Sprintf("line %06d", i))
	}
	return out
}

// A link that expires between the redirect and the download (a slow client) is fetched again.
func TestJobLogTailExpiredByTime(t *testing.T) {
	e := newFakeEnv(t)
	job := failWith(t, e, "2026-11-21T12:00:00.0Z boom\n")
	advanced := false
	e.rec.next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.Contains(r.URL.Path, "/_githubfake/logs/") && !advanced {
			advanced = true
			e.f.Advance(61 * time.Second)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	tail, err := e.c.JobLogTail(t.Context(), ref, job, 100)
	require.NoError(t, err)
	assert.Equal(t, "boom", tail.Text)
	assert.Equal(t, 2, e.count(http.MethodGet, "/logs"))
}

// A log far longer than the tail: only its end is downloaded, with a Range request, and the text
// is the same as from the whole log.
func TestJobLogTailRangesOverALongLog(t *testing.T) {
	log := numberedLog(20000) // ~800 KB
	tails := map[bool]ghclient.LogTail{}
	for _, ranges := range []bool{true, false} {
		e := newFakeEnv(t)
		job := failWith(t, e, log)
		e.rec.next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := http.DefaultTransport.RoundTrip(r)
			if err == nil && !ranges {
				resp.Header.Del("Accept-Ranges") // a log host that does not say it serves ranges
			}
			return resp, err
		})
		tail, err := e.c.JobLogTail(t.Context(), ref, job, 2000)
		require.NoError(t, err)
		tails[ranges] = tail
		dl := e.downloads()
		if ranges {
			// The headers; the last 8 kB hold under 2 kB of text (timestamps and colours go);
			// the last 32 kB are enough.
			var ranges []string
			for _, d := range dl {
				ranges = append(ranges, d.Range)
			}
			assert.Equal(t, []string{"", fmt.Sprintf("bytes=%d-", len(log)-8000), fmt.Sprintf("bytes=%d-", len(log)-32000)}, ranges)
		} else {
			require.Len(t, dl, 1)
		}
		assert.True(t, tail.Truncated)
		assert.Equal(t, int64(len(log)), tail.Bytes)
		assert.LessOrEqual(t, len(tail.Text), 2000)
		assert.True(t, strings.HasSuffix(tail.Text, "\nline 020000"), tail.Text[max(0, len(tail.Text)-40):])
		assert.True(t, strings.HasPrefix(tail.Text, "line "))
	}
	assert.Equal(t, tails[false], tails[true])
}

// The fake's own log for a failed job: timestamps and all.
func TestJobLogTailOfAGeneratedLog(t *testing.T) {
	e := newFakeEnv(t)
	job := failWith(t, e, "")
	tail, err := e.c.JobLogTail(t.Context(), ref, job, 1<<10)
	require.NoError(t, err)
	assert.Contains(t, tail.Text, "##[group]Run test\n")
	assert.Contains(t, tail.Text, "--- FAIL: test\n##[error]Process completed with exit code 1.")
	assert.NotContains(t, tail.Text, "Z ")
}

func TestJobLogTailRedactsTheToken(t *testing.T) {
	e := newFakeEnv(t)
	auth := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + fakeToken))
	log := "2026-11-21T12:00:00.0000000Z env\n" +
		"2026-11-21T12:00:00.0000000Z GITHUB_TOKEN=" + fakeToken + "\n" +
		"2026-11-21T12:00:00.0000000Z git -c http.extraheader=\"AUTHORIZATION: basic " + auth + "\" fetch\n" +
		"2026-11-21T12:00:00.0000000Z https://x-access-token:" + url.QueryEscape(fakeToken) + "@github.com/acme/widgets\n" +
		"2026-11-21T12:00:00.0000000Z --- FAIL: TestWidget\n"
	job := failWith(t, e, log)
	tail, err := e.c.JobLogTail(t.Context(), ref, job, 4096)
	require.NoError(t, err)
	assert.NotContains(t, tail.Text, fakeToken)
	assert.NotContains(t, tail.Text, auth[20:60])
	assert.Equal(t, 3, strings.Count(tail.Text, "[REDACTED]"), tail.Text)
	assert.Contains(t, tail.Text, "--- FAIL: TestWidget")
}

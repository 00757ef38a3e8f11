package ghclient

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// GitHub Enterprise Server may serve a log from its own host: the redirect's URL is pre-signed and
// must get no token even there, although the host is one the transport authenticates.
func TestLogDownloadOnTheAPIHostGetsNoToken(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]string{}
	failDownload := false
	c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.URL.Path] = r.Header.Get("Authorization")
		fail := failDownload
		mu.Unlock()
		switch r.URL.Path {
		case "/repos/o/r/actions/jobs/5/logs":
			w.Header().Set("Location", "/signed/5?sig=SIGNATURE-SECRET&se=2026")
			w.WriteHeader(http.StatusFound)
		case "/signed/5":
			if fail {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			_, _ = w.Write([]byte("2026-11-21T12:00:00.0Z hello\n"))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	_ = srv
	ref := prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}
	tail, err := c.JobLogTail(t.Context(), ref, 5, 100)
	require.NoError(t, err)
	assert.Equal(t, "hello", tail.Text)
	mu.Lock()
	assert.Equal(t, "Bearer "+testToken, auth["/repos/o/r/actions/jobs/5/logs"], "the API call is authenticated")
	assert.Empty(t, auth["/signed/5"], "the pre-signed download is not")
	failDownload = true
	mu.Unlock()

	_, err = c.JobLogTail(t.Context(), ref, 5, 100)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.NotContains(t, err.Error(), "SIGNATURE-SECRET", "the signed URL stays out of errors")
	assert.NotContains(t, err.Error(), testToken)
	assert.False(t, strings.Contains(err.Error(), "\n"))
}

// A redirect that names no usable place is an error that does not quote it, and nothing is
// downloaded: an empty location must not send the tokenless download to the API root.
func TestLogRedirectWithoutAUsableLocation(t *testing.T) {
	for _, loc := range []string{"", "ftp://logs.example.com/5?sig=SIGNATURE-SECRET", "http://%zz/?sig=SIGNATURE-SECRET"} {
		t.Run(loc, func(t *testing.T) {
			var mu sync.Mutex
			var paths []string
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				paths = append(paths, r.URL.Path)
				mu.Unlock()
				if loc != "" {
					w.Header().Set("Location", loc)
				}
				w.WriteHeader(http.StatusFound)
			}))
			_, err := c.JobLogTail(t.Context(), prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}, 5, 100)
			require.ErrorIs(t, err, errNoLocation)
			assert.NotContains(t, err.Error(), "SIGNATURE-SECRET")
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"/repos/o/r/actions/jobs/5/logs"}, paths, "the API call only")
		})
	}
}

func TestContentRange(t *testing.T) {
	for _, tt := range []struct {
		h           string
		start, size int64
	}{
		{"bytes 100-199/1000", 100, 1000},
		{"bytes 0-999/1000", 0, 1000},
		{"bytes 100-199/*", 100, 50},
		{"", 7, 50},
		{"items 1-2/3", 7, 50},
	} {
		start, size := contentRange(tt.h, 7, 50)
		assert.Equal(t, tt.start, start, tt.h)
		assert.Equal(t, tt.size, size, tt.h)
	}
}

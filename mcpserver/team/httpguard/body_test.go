package httpguard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
)

// echo answers with the body it was handed.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	_, _ = w.Write(b)
})

// unsized hides a body's length (a chunked upload).
type unsized struct{ io.Reader }

func TestABodyIsReadWithinItsCapBeforeTheHandlerRuns(t *testing.T) {
	b := httpguard.NewBodies(10, 100, time.Second)
	tests := []struct {
		name   string
		body   io.Reader
		status int
		echoed string
	}{
		{"a body within the cap", strings.NewReader("0123456789"), http.StatusOK, "0123456789"},
		{"a declared body over the cap, refused unread", strings.NewReader("0123456789A"), http.StatusRequestEntityTooLarge, ""},
		{"a chunked body within the cap", unsized{strings.NewReader("abc")}, http.StatusOK, "abc"},
		{"a chunked body over the cap", unsized{strings.NewReader(strings.Repeat("x", 11))}, http.StatusRequestEntityTooLarge, ""},
		{"no body", nil, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", tt.body)
			if _, ok := tt.body.(unsized); ok {
				r.ContentLength = -1
			}
			w := httptest.NewRecorder()
			b.Limit(echo).ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code)
			if tt.status == http.StatusOK {
				assert.Equal(t, tt.echoed, w.Body.String())
			}
		})
	}
}

// TestWhenTheInFlightBytesAreTakenARequestWaitsThen503: the room a body holds is given back when
// its handler returns; a request that finds none within the wait is answered 503, Retry-After.
func TestWhenTheInFlightBytesAreTakenARequestWaitsThen503(t *testing.T) {
	b := httpguard.NewBodies(10, 10, 50*time.Millisecond)
	entered, leave := make(chan struct{}), make(chan struct{})
	holder := b.Limit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(entered); <-leave }))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		holder.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", strings.NewReader("0123456789")))
	}()
	<-entered
	w := httptest.NewRecorder()
	b.Limit(echo).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x")))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "5", w.Header().Get("Retry-After"))

	w = httptest.NewRecorder()
	b.Limit(echo).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusOK, w.Code, "a request without a body holds no room")

	close(leave)
	wg.Wait()
	w = httptest.NewRecorder()
	b.Limit(echo).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("0123456789")))
	assert.Equal(t, http.StatusOK, w.Code, "the room came back")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, status, err := b.Read(httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x")).WithContext(ctx))
	require.Error(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, status, "a request whose client left waits no more")
}

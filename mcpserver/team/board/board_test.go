package board

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/statemachine"
)

// views is a Reader whose monitors the test changes.
type views struct {
	mu   sync.Mutex
	v    View
	err  error
	seen []string // the users asked for
}

func (r *views) View(_ context.Context, user string) (View, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, user)
	v := r.v
	v.Monitors = slices.Clone(r.v.Monitors) // set changes r.v's under the lock; a reader keeps its copy
	return v, r.err
}

func (r *views) set(fn func(*View)) { r.mu.Lock(); fn(&r.v); r.mu.Unlock() }

const hostileTitle = `<img src=x onerror="document.title='pwned'">Fix <b>retries</b>`

func sampleView() View {
	at := time.Now().Add(-3 * time.Minute).UTC()
	return View{
		Budget: &Budget{Limit: 5000, Remaining: 4210},
		Monitors: []monitorwf.Status{
			{MonitorID: "acme/widgets#7", PR: "acme/widgets#7", Title: "Add retries", URL: "https://github.com/acme/widgets/pull/7",
				State: statemachine.StateAwaitingUser, WaitingOn: monitorwf.WaitingOnUser, Attention: "ready to merge",
				Question: &elicitation.Question{ID: "ready", Seq: 3, Text: "The pull request is ready. Merge it?",
					Choices: []elicitation.Choice{{Value: "merge", Label: "Merge now"}, {Value: "wait", Label: "Wait for another approval"}}},
				LastEvent: monitorwf.Event{At: at, What: "read: ready to merge → ask_user"}},
			{MonitorID: "acme/widgets#8", PR: "acme/widgets#8", Title: statemachine.Untrusted(hostileTitle), URL: "javascript:alert(1)",
				State: statemachine.StatePolling, WaitingOn: monitorwf.WaitingOnGitHub, Attention: "checks running",
				LastEvent: monitorwf.Event{At: at, What: "GitHub: check_run.completed"}},
		},
	}
}

func newBoard(t *testing.T, r Reader) *Handler {
	h, err := New(Config{Reader: r, Every: 50 * time.Millisecond, User: func(r *http.Request) (string, bool) {
		u := r.Header.Get("X-Test-User")
		return u, u != ""
	}})
	require.NoError(t, err)
	return h
}

func get(h http.Handler, path, user string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if user != "" {
		r.Header.Set("X-Test-User", user)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestTheBoardAnswersOnlyAnAuthenticatedUserAndReadsThatUsersMonitors(t *testing.T) {
	r := &views{v: sampleView()}
	h := newBoard(t, r)
	for _, path := range []string{"/api/monitors", "/events"} {
		assert.Equal(t, http.StatusUnauthorized, get(h, path, "").Code, path)
	}
	for _, path := range []string{"/", "/board.js"} {
		assert.Equal(t, http.StatusOK, get(h, path, "").Code, "%s: static, with no data in it (it asks to sign in)", path)
	}
	assert.Empty(t, r.seen, "nothing was read for an unknown caller")

	w := get(h, "/api/monitors", "alice")
	require.Equal(t, http.StatusOK, w.Code)
	var v pageModel
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v))
	assert.Equal(t, "alice", v.User)
	assert.Len(t, v.Cards, 2)
	assert.Equal(t, []string{"alice"}, r.seen)
}

func TestThePageMayRunOnlyItsOwnScriptAndPostOnlyToItself(t *testing.T) {
	w := get(newBoard(t, &views{}), "/", "alice")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `name="viewport"`, "readable on a phone")
	csp := w.Header().Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self'")
	assert.NotContains(t, csp, "unsafe-eval")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.Contains(t, csp, "form-action 'self'")
	assert.Equal(t, http.StatusNotFound, get(newBoard(t, &views{}), "/elsewhere", "alice").Code)
}

func TestAViewTooLongIsCutAndSaysHowManyWereLeftOut(t *testing.T) {
	var v View
	for range MaxMonitors + 7 {
		v.Monitors = append(v.Monitors, monitorwf.Status{PR: "acme/widgets#1"})
	}
	w := get(newBoard(t, &views{v: v}), "/api/monitors", "alice")
	var got pageModel
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
	assert.Len(t, got.Cards, MaxMonitors)
	assert.Equal(t, 7, got.Omitted)
}

func TestAReaderFailureIsAServiceUnavailableNotACrash(t *testing.T) {
	w := get(newBoard(t, &views{err: errors.New("temporal down")}), "/api/monitors", "alice")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.NotContains(t, w.Body.String(), "temporal down", "the cause goes to the log, not the page")
}

func TestTheEventStreamSendsTheViewAndThenOnlyItsChanges(t *testing.T) {
	r := &views{v: sampleView()}
	srv := httptest.NewServer(newBoard(t, r))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
	req.Header.Set("X-Test-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "data: ") {
				return l
			}
		}
		return ""
	}
	first := next()
	assert.Contains(t, first, `"acme/widgets#7"`)
	r.set(func(v *View) { v.Monitors[1].Attention = "checks failed" })
	second := next()
	assert.Contains(t, second, "checks failed", "the change is pushed")
	assert.NotEqual(t, first, second)
}

func TestAnOpenEventStreamEndsWhenItsSessionDoesAndReadsNothingMore(t *testing.T) {
	r := &views{v: sampleView()}
	var mu sync.Mutex
	signedIn := true
	h, err := New(Config{Reader: r, Every: 20 * time.Millisecond, User: func(*http.Request) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		return "alice", signedIn
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "data: ") {
	}
	require.Contains(t, lines.Text(), `"acme/widgets#7"`, "the first view came")

	mu.Lock()
	signedIn = false // the session expired, or its user left the tokens file
	mu.Unlock()
	r.mu.Lock()
	asked := len(r.seen)
	r.mu.Unlock()
	for lines.Scan() {
		assert.NotContains(t, lines.Text(), "data: ", "nothing more is sent once the session ended")
	}
	assert.NoError(t, lines.Err(), "the server ended the stream (the page then asks the person to sign in)")
	r.mu.Lock()
	defer r.mu.Unlock()
	assert.LessOrEqual(t, len(r.seen), asked+1, "at most the read under way when the session ended")
	assert.NotContains(t, r.seen, "", "no read for nobody")
}

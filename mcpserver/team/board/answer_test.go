package board

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// answers records the answers the board sent on.
type answers struct {
	mu   sync.Mutex
	got  []string
	fail error
}

func (a *answers) answer(_ context.Context, user, monitor string, seq int, choice elicitation.Value) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != nil {
		return a.fail
	}
	a.got = append(a.got, strings.Join([]string{user, monitor, string(rune('0' + seq)), string(choice)}, " "))
	return nil
}

func newAnsweringBoard(t *testing.T, a *answers) *Handler {
	h, err := New(Config{Reader: &views{v: sampleView()}, Answer: a.answer, User: func(r *http.Request) (string, bool) {
		u := r.Header.Get("X-Test-User")
		return u, u != ""
	}})
	require.NoError(t, err)
	return h
}

func post(h http.Handler, user string, form url.Values, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/answer", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		r.Header.Set("X-Test-User", user)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestTheSignedInUserAnswersAnOpenQuestionFromTheBoardsOwnPageOnly(t *testing.T) {
	a := &answers{}
	h := newAnsweringBoard(t, a)
	form := func(csrf string) url.Values {
		return url.Values{"monitor": {"acme/widgets#7"}, "seq": {"3"}, "choice": {"merge"}, "csrf": {csrf}}
	}
	js := map[string]string{"Accept": "application/json", "Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}
	tests := []struct {
		name   string
		user   string
		form   url.Values
		header map[string]string
		status int
	}{
		{"no session", "", form(h.csrf.token("alice")), js, http.StatusUnauthorized},
		{"no token", "alice", form(""), js, http.StatusForbidden},
		{"another user's token", "alice", form(h.csrf.token("mallory")), js, http.StatusForbidden},
		{"a forged token", "alice", form("AAAA"), js, http.StatusForbidden},
		{"another site's page", "alice", form(h.csrf.token("alice")), map[string]string{"Accept": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"another site, says the browser", "alice", form(h.csrf.token("alice")), map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"no question number", "alice", url.Values{"monitor": {"acme/widgets#7"}, "choice": {"merge"}, "csrf": {h.csrf.token("alice")}}, js, http.StatusBadRequest},
		{"the board's page, by script", "alice", form(h.csrf.token("alice")), js, http.StatusOK},
		{"the board's page, without script", "alice", form(h.csrf.token("alice")), nil, http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.got = nil
			w := post(h, tt.user, tt.form, tt.header)
			assert.Equal(t, tt.status, w.Code, w.Body.String())
			if tt.status == http.StatusOK || tt.status == http.StatusSeeOther {
				assert.Equal(t, []string{"alice acme/widgets#7 3 merge"}, a.got, "the user's own answer, sent on")
			} else {
				assert.Empty(t, a.got, "nothing sent")
			}
		})
	}
}

func TestAnAnswerTheMonitorDidNotTakeSaysWhy(t *testing.T) {
	tests := []struct {
		err    error
		status int
		says   string
	}{
		{ErrQuestionClosed, http.StatusConflict, "no longer open"},
		{ErrUnknownMonitor, http.StatusNotFound, "no such monitor"},
		{errors.New("the monitor is doing GitHub work"), http.StatusBadGateway, "doing GitHub work"},
	}
	for _, tt := range tests {
		h := newAnsweringBoard(t, &answers{fail: tt.err})
		form := url.Values{"monitor": {"acme/widgets#7"}, "seq": {"3"}, "choice": {"merge"}, "csrf": {h.csrf.token("alice")}}
		w := post(h, "alice", form, map[string]string{"Accept": "application/json"})
		assert.Equal(t, tt.status, w.Code)
		var got answerReply
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
		assert.False(t, got.OK)
		assert.Contains(t, got.Message, tt.says)
	}
}

// The first view is the server's: a signed-in user's cards, the question as a form whose choices
// are buttons, GitHub's text quoted without fence lines, states and events in words.
func TestTheFirstViewIsRenderedByTheServer(t *testing.T) {
	v := sampleView()
	v.Monitors[0].Question.Text = "Approved by: " + fenced("bob") + "\nMerge it?"
	h, err := New(Config{Reader: &views{v: v}, Answer: (&answers{}).answer, Now: func() time.Time { return v.Monitors[0].LastEvent.At.Add(3 * time.Minute) },
		User: func(r *http.Request) (string, bool) { return "alice", r.Header.Get("X-Test-User") != "" }})
	require.NoError(t, err)

	page := get(h, "/", "alice").Body.String()
	for _, want := range []string{
		`data-monitor="acme/widgets#7"`, `<a href="https://github.com/acme/widgets/pull/7"`,
		`<form class="question" method="post" action="answer">`, `<button type="submit" name="choice" value="merge">Merge now</button>`,
		`name="csrf" value="` + h.csrf.token("alice") + `"`, `Approved by: <q class="gh">bob</q>`,
		"waits on you", "A question waits for your answer.", "Read the pull request: ready to merge; then a question for you.", "3 min ago",
		"&lt;img src=x", "signed in as alice", "4210 of 5000 points left this hour",
	} {
		assert.Contains(t, page, want)
	}
	for _, never := range []string{"<<<", "untrusted GitHub text", "awaiting_user", "ask_user", "<img", `href="javascript:`} {
		assert.NotContains(t, page, never)
	}

	signedOut := get(h, "/", "").Body.String()
	assert.NotContains(t, signedOut, "acme/widgets", "no data without a session")
	assert.Contains(t, signedOut, `<form id="signin" autocomplete="off">`, "the sign-in form shows")
}

func TestAnEmptyBoardSaysHowToStart(t *testing.T) {
	page := get(newBoard(t, &views{}), "/", "alice").Body.String()
	assert.Contains(t, page, "No monitors yet.")
	assert.Contains(t, page, "pr_monitor_start")
}

func TestAgoSaysHowLongBeforeInWords(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		2 * time.Second: "just now", 45 * time.Second: "45 s ago", 3 * time.Minute: "3 min ago", 3 * time.Hour: "3 h ago", 72 * time.Hour: "3 days ago",
	} {
		assert.Equal(t, want, ago(now, now.Add(-d)))
	}
	assert.Empty(t, ago(now, time.Time{}))
}

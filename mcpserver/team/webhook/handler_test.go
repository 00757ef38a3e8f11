package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

var secret = []byte("s3cret-for-tests")

type signal struct {
	ref   string
	kind  string
	start bool
	owner string
}

// monitors records the signals; running lists the monitors a poke finds.
type monitors struct {
	mu      sync.Mutex
	got     []signal
	running map[string]bool
	fail    error
}

func (m *monitors) Start(_ context.Context, ref prstatus.PRRef, c monitorwf.Change) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return false, m.fail
	}
	m.got = append(m.got, signal{ref: ref.String(), kind: c.Kind, start: true, owner: c.Owner})
	return true, nil
}

func (m *monitors) Poke(_ context.Context, ref prstatus.PRRef, c monitorwf.Change) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running[ref.String()] {
		return false, nil
	}
	m.got = append(m.got, signal{ref: ref.String(), kind: c.Kind})
	return true, nil
}

func sign(body []byte, key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

type delivery struct {
	event, id, body string
	header          map[string]string // replaces the signature headers when set
	form            bool
}

func (d delivery) request() *http.Request {
	body := []byte(d.body)
	ct := "application/json"
	if d.form {
		body = []byte("payload=" + url.QueryEscape(d.body))
		ct = "application/x-www-form-urlencoded"
	}
	r := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", ct)
	r.Header.Set("X-GitHub-Event", d.event)
	r.Header.Set("X-GitHub-Delivery", d.id)
	if d.header == nil {
		r.Header.Set("X-Hub-Signature-256", sign(body, secret))
	}
	for k, v := range d.header {
		r.Header.Set(k, v)
	}
	return r
}

const repo = `"repository":{"name":"widgets","owner":{"login":"acme"}}`

func prEvent(action, assoc string) string {
	return `{"action":"` + action + `","pull_request":{"number":7,"author_association":"` + assoc + `","user":{"login":"Dev"}},` + repo + `}`
}

func newHandler(t *testing.T, m *monitors, pulls PullsForCommit) *Handler {
	h, err := New(Config{Secret: secret, Monitors: m, Pulls: pulls, MaxBody: 4096})
	require.NoError(t, err)
	return h
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestDeliveriesBecomeSignalsToTheMonitorsTheyName(t *testing.T) {
	pulls := func(_ context.Context, owner, name, sha string) ([]int, error) {
		if owner == "acme" && name == "widgets" && sha == "abc123" {
			return []int{7, 9}, nil
		}
		return nil, nil
	}
	tests := []struct {
		name    string
		d       delivery
		status  int
		signals []signal
	}{
		{"a pull request opened by a member starts its monitor", delivery{event: "pull_request", id: "1", body: prEvent("opened", "MEMBER")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.opened", true, "dev"}}},
		{"a review only pokes, even on a collaborator's pull request", delivery{event: "pull_request_review", id: "2",
			body: `{"action":"submitted","review":{"state":"changes_requested"},"pull_request":{"number":7,"author_association":"COLLABORATOR","user":{"login":"Dev"}},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request_review.submitted", false, ""}}},
		{"a member's pull request closed only pokes", delivery{event: "pull_request", id: "2b", body: prEvent("closed", "MEMBER")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.closed", false, ""}}},
		{"a member's pull request pushed to starts its monitor", delivery{event: "pull_request", id: "2c", body: prEvent("synchronize", "MEMBER")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.synchronize", true, "dev"}}},
		{"a member's draft marked ready starts its monitor", delivery{event: "pull_request", id: "2d", body: prEvent("ready_for_review", "OWNER")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.ready_for_review", true, "dev"}}},
		{"a member's pull request labelled only pokes", delivery{event: "pull_request", id: "2e", body: prEvent("labeled", "MEMBER")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.labeled", false, ""}}},
		{"a pull request event that names no author starts nothing (a monitor belongs to someone)", delivery{event: "pull_request", id: "1b",
			body: `{"action":"opened","pull_request":{"number":7,"author_association":"MEMBER"},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.opened", false, ""}}},
		{"a stranger's pull request only pokes a running monitor", delivery{event: "pull_request", id: "3", body: prEvent("synchronize", "CONTRIBUTOR")},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.synchronize", false, ""}}},
		{"a review thread resolved", delivery{event: "pull_request_review_thread", id: "4",
			body: `{"action":"resolved","pull_request":{"number":7,"author_association":"OWNER","user":{"login":"Dev"}},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request_review_thread.resolved", false, ""}}},
		{"a review comment", delivery{event: "pull_request_review_comment", id: "5",
			body: `{"action":"created","pull_request":{"number":7,"author_association":"MEMBER","user":{"login":"Dev"}},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request_review_comment.created", false, ""}}},
		{"a comment on a pull request", delivery{event: "issue_comment", id: "6",
			body: `{"action":"created","issue":{"number":7,"author_association":"MEMBER","user":{"login":"Dev"},"pull_request":{"url":"x"}},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "issue_comment.created", false, ""}}},
		{"a comment on an issue signals nothing", delivery{event: "issue_comment", id: "7",
			body: `{"action":"created","issue":{"number":8,"author_association":"MEMBER"},` + repo + `}`},
			http.StatusOK, nil},
		{"a check run names its pull requests", delivery{event: "check_run", id: "8",
			body: `{"action":"completed","check_run":{"head_sha":"abc123","pull_requests":[{"number":7}]},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "check_run.completed", false, ""}}},
		{"a check suite on a fork finds its pull requests by head commit", delivery{event: "check_suite", id: "9",
			body: `{"action":"completed","check_suite":{"head_sha":"abc123","pull_requests":[]},` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "check_suite.completed", false, ""}, {"acme/widgets#9", "check_suite.completed", false, ""}}},
		{"a commit status finds its pull requests by commit", delivery{event: "status", id: "10",
			body: `{"sha":"abc123","state":"failure",` + repo + `}`},
			http.StatusAccepted, []signal{{"acme/widgets#7", "status.failure", false, ""}, {"acme/widgets#9", "status.failure", false, ""}}},
		{"a form-encoded delivery is read from its payload field", delivery{event: "pull_request", id: "11", body: prEvent("reopened", "MEMBER"), form: true},
			http.StatusAccepted, []signal{{"acme/widgets#7", "pull_request.reopened", true, "dev"}}},
		{"a ping is answered and signals nothing", delivery{event: "ping", id: "12", body: `{"zen":"Keep it simple."}`},
			http.StatusOK, nil},
		{"an identifier that is no repository name signals nothing", delivery{event: "pull_request", id: "13",
			body: `{"action":"opened","pull_request":{"number":7,"author_association":"MEMBER"},"repository":{"name":"../x y","owner":{"login":"acme"}}}`},
			http.StatusOK, nil},
		{"a bad signature is refused", delivery{event: "pull_request", id: "20", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": sign([]byte(prEvent("opened", "MEMBER")), []byte("wrong"))}},
			http.StatusUnauthorized, nil},
		{"a missing signature is refused", delivery{event: "pull_request", id: "21", body: prEvent("opened", "MEMBER"), header: map[string]string{}},
			http.StatusUnauthorized, nil},
		{"a SHA-1 signature alone is refused", delivery{event: "pull_request", id: "22", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature": "sha1=" + hex.EncodeToString(hmac.New(sha1.New, secret).Sum(nil))}},
			http.StatusUnauthorized, nil},
		{"a signature of another algorithm in the SHA-256 header is refused", delivery{event: "pull_request", id: "23", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": "sha1=00"}},
			http.StatusUnauthorized, nil},
		{"a garbled signature is refused", delivery{event: "pull_request", id: "25", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": "sha256=not-hex-at-all"}},
			http.StatusUnauthorized, nil},
		{"an empty signature is refused", delivery{event: "pull_request", id: "26", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": "sha256="}},
			http.StatusUnauthorized, nil},
		{"a signature cut short is refused", delivery{event: "pull_request", id: "27", body: prEvent("opened", "MEMBER"),
			header: map[string]string{"X-Hub-Signature-256": sign([]byte(prEvent("opened", "MEMBER")), secret)[:40]}},
			http.StatusUnauthorized, nil},
		{"a signed body that is not JSON is a bad request, not a failure", delivery{event: "pull_request", id: "30", body: `{"action":`},
			http.StatusBadRequest, nil},
		{"a body over the cap is refused", delivery{event: "pull_request", id: "24", body: `{"pad":"` + strings.Repeat("x", 5000) + `"}`},
			http.StatusRequestEntityTooLarge, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &monitors{running: map[string]bool{"acme/widgets#7": true, "acme/widgets#9": true}}
			w := serve(newHandler(t, m, pulls), tt.d.request())
			assert.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Equal(t, tt.signals, m.got)
		})
	}
}

func TestARedeliveryIsDroppedButADeliveryThatFailedIsTakenAgain(t *testing.T) {
	m := &monitors{}
	h := newHandler(t, m, nil)
	d := delivery{event: "pull_request", id: "abc", body: prEvent("opened", "MEMBER")}

	m.fail = errors.New("temporal unavailable")
	assert.Equal(t, http.StatusInternalServerError, serve(h, d.request()).Code)
	m.fail = nil
	assert.Equal(t, http.StatusAccepted, serve(h, d.request()).Code, "a failed delivery was not remembered")
	w := serve(h, d.request())
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), "duplicate")
	d.id = "a-new-id-on-a-captured-body"
	w = serve(h, d.request())
	assert.Equal(t, "duplicate", w.Header().Get(OutcomeHeader), "the delivery id is not signed: the body is what is remembered")
	assert.Len(t, m.got, 1, "one signal for four deliveries of the same body")
}

func TestADeliveryIdIsForgottenAfterTheWindow(t *testing.T) {
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	m := &monitors{}
	h, err := New(Config{Secret: secret, Monitors: m, DedupWindow: time.Hour, Now: func() time.Time { return now }})
	require.NoError(t, err)
	d := delivery{event: "pull_request", id: "abc", body: prEvent("opened", "MEMBER")}
	serve(h, d.request())
	now = now.Add(2 * time.Hour)
	assert.Equal(t, http.StatusAccepted, serve(h, d.request()).Code)
	assert.Len(t, m.got, 2)
}

func TestTheEndpointTakesOnlyPostAndNeedsASecret(t *testing.T) {
	h := newHandler(t, &monitors{}, nil)
	w := serve(h, httptest.NewRequest(http.MethodGet, "/webhook", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	_, err := New(Config{Secret: []byte("  "), Monitors: &monitors{}})
	assert.ErrorContains(t, err, "secret is empty")
}

// TestACommitThisInstallationCannotSeeIsLoggedOnce: deliveries about a repository the lookup of
// a commit's pull requests cannot see are each answered "nothing to signal"; the log says so once.
func TestACommitThisInstallationCannotSeeIsLoggedOnce(t *testing.T) {
	var logged strings.Builder
	pulls := func(context.Context, string, string, string) ([]int, error) { return nil, ErrNotVisible }
	h, err := New(Config{Secret: secret, Monitors: &monitors{}, Pulls: pulls,
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	require.NoError(t, err)
	for i := range 3 {
		d := delivery{event: "status", id: fmt.Sprint("s", i), body: fmt.Sprintf(`{"sha":"abc%d","state":"success",%s}`, i, repo)}
		w := serve(h, d.request())
		assert.Equal(t, http.StatusOK, w.Code)
		assert.Equal(t, "not-visible", w.Header().Get(OutcomeHeader))
	}
	assert.Equal(t, 1, strings.Count(logged.String(), "cannot see"), logged.String())
}

package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Monitors is where deliveries go: the monitors' workflows.
type Monitors interface {
	// Start signals the monitor of ref, starting it for c.Owner when none runs, unless its last
	// run was stopped by that owner (or merged); ok is false when nothing was signalled.
	Start(ctx context.Context, ref prstatus.PRRef, c monitorwf.Change) (ok bool, err error)
	// Poke signals the monitor of ref if one runs; ok is false when none does.
	Poke(ctx context.Context, ref prstatus.PRRef, c monitorwf.Change) (ok bool, err error)
}

// PullsForCommit finds the open pull requests of a repository whose head is sha (a status event
// names only the commit; a check event on a fork's branch names no pull request).
type PullsForCommit func(ctx context.Context, owner, repo, sha string) ([]int, error)

// Defaults.
const (
	// DefaultMaxBody is GitHub's own cap on a delivery's payload (25 MB: GitHub drops larger
	// payloads rather than send them).
	DefaultMaxBody = 25 << 20
	// DefaultMaxInFlight bounds the bytes all deliveries being read or checked hold at once: two
	// payloads at GitHub's cap, or thousands of ordinary ones (tens of kilobytes). It is spent
	// before the signature is checked, so unsigned posts cannot grow the heap past it.
	DefaultMaxInFlight = 64 << 20
	// DefaultWaitForRoom is how long a delivery waits for in-flight room before it is answered 503.
	DefaultWaitForRoom = 10 * time.Second
	// DefaultDedupWindow is the replay window: a delivery seen within it (by its id, or by its
	// signed body's digest, also remembered by the monitor it signalled) is dropped, and one whose
	// event happened before it is refused. GitHub delivers within seconds and redelivers on
	// request, usually within minutes.
	DefaultDedupWindow = monitorwf.DefaultDeliveryWindow
	dedupMax           = 100_000
)

// Config configures a Handler.
type Config struct {
	// Secret is the webhook's shared secret; it must not be empty.
	Secret   []byte
	Monitors Monitors
	// Pulls finds pull requests by head commit; nil ignores events that name none.
	Pulls PullsForCommit
	// MaxBody caps a delivery's body (DefaultMaxBody when zero); MaxInFlight the bytes of all
	// deliveries being read at once (DefaultMaxInFlight when zero).
	MaxBody     int64
	MaxInFlight int64
	DedupWindow time.Duration
	// Counted, when set, is told each delivery's event and result (Result*): the worker's
	// metrics. The event of a delivery whose signature did not verify is "unverified".
	Counted func(event, result string)
	Now     func() time.Time
	Logger  *slog.Logger
}

// A delivery's results, as Config.Counted hears them: the outcome its answer names
// (OutcomeHeader), or, for a delivery whose signature was not checked, why.
const (
	ResultSignalled  = "signalled"   // one or more monitors signalled (or started)
	ResultNoMonitor  = "no-monitor"  // handled: no monitor runs for it
	ResultNotHandled = "not-handled" // an event the receiver does not act on
	ResultNotVisible = "not-visible" // about a commit or repository the worker cannot see
	ResultDuplicate  = "duplicate"   // a redelivery or a replay already taken
	ResultStale      = "stale"       // an event older than the replay window
	ResultFailed     = "failed"      // the monitors could not be signalled: GitHub may redeliver
	ResultRefused    = "refused"     // no or a wrong signature
	ResultMalformed  = "malformed"   // signed, but not a payload (or too large, or no room)
	eventUnverified  = "unverified"
)

// Handler is the POST /webhook endpoint.
type Handler struct {
	cfg    Config
	seen   *seen
	bodies *httpguard.Bodies
	// unseen are the repositories already logged as not visible (each is logged once a window).
	unseen *seen
}

// New returns the handler; a missing secret is an error, never an open endpoint.
func New(cfg Config) (*Handler, error) {
	if len(bytes.TrimSpace(cfg.Secret)) == 0 {
		return nil, errors.New("webhook: the secret is empty; a webhook without one would accept anyone's deliveries")
	}
	if cfg.Monitors == nil {
		return nil, errors.New("webhook: no monitors to signal")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.DedupWindow <= 0 {
		cfg.DedupWindow = DefaultDedupWindow
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Counted == nil {
		cfg.Counted = func(string, string) {}
	}
	return &Handler{cfg: cfg, seen: newSeen(cfg.DedupWindow, dedupMax), unseen: newSeen(cfg.DedupWindow, 10_000),
		bodies: httpguard.NewBodies(cfg.MaxBody, cfg.MaxInFlight, DefaultWaitForRoom)}, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	payload, release, status, err := h.verified(r)
	if err != nil {
		h.cfg.Logger.Warn("webhook delivery refused", "status", status, "err", err, "remote", r.RemoteAddr)
		result := ResultMalformed
		if status == http.StatusUnauthorized {
			result = ResultRefused
		}
		h.cfg.Counted(eventUnverified, result)
		httpguard.Refuse(w, status, errors.New(http.StatusText(status)))
		return
	}
	defer release()
	d := incoming{event: github.WebHookType(r), delivery: github.DeliveryID(r), now: h.cfg.Now()}
	sum := sha256.Sum256(payload)
	d.digest = hex.EncodeToString(sum[:16])
	p, early := h.screen(d, payload)
	if early != nil {
		h.cfg.Counted(d.event, early.outcome)
		early.write(w)
		return
	}
	action := p.Action
	if d.event == "status" {
		action = p.State
	}
	out, err := h.dispatch(r.Context(), d.event, p, monitorwf.Change{Kind: kind(d.event, action), Delivery: d.delivery, Digest: d.digest})
	if err != nil {
		// Not recorded as seen: GitHub's redelivery (or the reconcile timer) gets another try.
		h.cfg.Logger.Error("webhook delivery not signalled", "event", clip(d.event), "delivery", clip(d.delivery), "err", err)
		h.cfg.Counted(d.event, ResultFailed)
		reply{http.StatusInternalServerError, ResultFailed, "could not signal the monitors"}.write(w)
		return
	}
	if d.delivery != "" {
		h.seen.add(d.delivery, d.now)
	}
	h.seen.add(d.digest, d.now)
	h.cfg.Logger.Debug("webhook delivery", "event", d.event, "delivery", clip(d.delivery), "monitors", out.signalled)
	rep := h.settled(d, p, out)
	h.cfg.Counted(d.event, rep.outcome)
	rep.write(w)
}

// verified reads the body within the caps (the body's size and the bytes of all deliveries in
// flight, both before the signature can be checked) and checks its signature. Only a sha256
// signature in X-Hub-Signature-256 is accepted (go-github would fall back to the SHA-1 header).
// release gives the body's room back; it is set when err is nil.
func (h *Handler) verified(r *http.Request) (payload []byte, release func(), status int, err error) {
	sig := r.Header.Get(github.SHA256SignatureHeader)
	if !strings.HasPrefix(sig, "sha256=") {
		return nil, nil, http.StatusUnauthorized, errors.New("no X-Hub-Signature-256 signature")
	}
	body, release, status, err := h.bodies.Read(r)
	if err != nil {
		return nil, nil, status, err
	}
	fail := func(status int, err error) ([]byte, func(), int, error) {
		release()
		return nil, nil, status, err
	}
	if err := github.ValidateSignature(sig, body, h.cfg.Secret); err != nil {
		return fail(http.StatusUnauthorized, err)
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return fail(http.StatusBadRequest, err)
	}
	payload, err = github.ValidatePayloadFromBody(ct, bytes.NewReader(body), sig, h.cfg.Secret)
	if err != nil {
		return fail(http.StatusBadRequest, err)
	}
	return payload, release, 0, nil
}

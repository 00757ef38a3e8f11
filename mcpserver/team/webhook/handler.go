package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Monitors is where deliveries go: the monitors' workflows.
type Monitors interface {
	// Notify signals the monitor of ref, starting it when none runs (SignalWithStart).
	Notify(ctx context.Context, ref prstatus.PRRef, c monitorwf.Change) error
	// Poke signals the monitor of ref if one runs; ok is false when none does.
	Poke(ctx context.Context, ref prstatus.PRRef, c monitorwf.Change) (ok bool, err error)
}

// PullsForCommit finds the open pull requests of a repository whose head is sha (a status event
// names only the commit; a check event on a fork's branch names no pull request).
type PullsForCommit func(ctx context.Context, owner, repo, sha string) ([]int, error)

// Defaults.
const (
	// DefaultMaxBody is GitHub's own cap on a delivery's payload.
	DefaultMaxBody = 25 << 20
	// DefaultDedupWindow: redeliveries within it are dropped (GitHub redelivers on request, or
	// when the receiver failed, usually within minutes).
	DefaultDedupWindow = 6 * time.Hour
	dedupMax           = 100_000
)

// Config configures a Handler.
type Config struct {
	// Secret is the webhook's shared secret; it must not be empty.
	Secret   []byte
	Monitors Monitors
	// Pulls finds pull requests by head commit; nil ignores events that name none.
	Pulls PullsForCommit
	// MaxBody caps a delivery's body (DefaultMaxBody when zero).
	MaxBody     int64
	DedupWindow time.Duration
	// Counted, when set, is told each delivery's event and result (Result*): the worker's
	// metrics. The event of a delivery whose signature did not verify is "unverified".
	Counted func(event, result string)
	Now     func() time.Time
	Logger  *slog.Logger
}

// A delivery's results, as Config.Counted hears them.
const (
	ResultSignalled = "signalled" // one or more monitors signalled
	ResultIgnored   = "ignored"   // verified, and about nothing a monitor watches
	ResultDuplicate = "duplicate" // a redelivery already signalled
	ResultFailed    = "failed"    // the monitors could not be signalled: GitHub may redeliver
	ResultRefused   = "refused"   // no or a wrong signature
	ResultMalformed = "malformed" // signed, but not a payload (or too large)
	eventUnverified = "unverified"
)

// Handler is the POST /webhook endpoint.
type Handler struct {
	cfg  Config
	seen *seen
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
	return &Handler{cfg: cfg, seen: newSeen(cfg.DedupWindow, dedupMax)}, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	payload, status, err := h.verified(w, r)
	if err != nil {
		h.cfg.Logger.Warn("webhook delivery refused", "status", status, "err", err, "remote", r.RemoteAddr)
		result := ResultMalformed
		if status == http.StatusUnauthorized {
			result = ResultRefused
		}
		h.cfg.Counted(eventUnverified, result)
		http.Error(w, http.StatusText(status), status)
		return
	}
	delivery, event := github.DeliveryID(r), github.WebHookType(r)
	if delivery != "" && h.seen.has(delivery, h.cfg.Now()) {
		h.cfg.Counted(event, ResultDuplicate)
		writeText(w, http.StatusOK, "duplicate delivery, dropped\n")
		return
	}
	n, err := h.dispatch(r.Context(), event, delivery, payload)
	if err != nil {
		// Not recorded as seen: GitHub's redelivery (or the reconcile timer) gets another try.
		h.cfg.Logger.Error("webhook delivery not signalled", "event", event, "delivery", delivery, "err", err)
		h.cfg.Counted(event, ResultFailed)
		http.Error(w, "could not signal the monitors", http.StatusInternalServerError)
		return
	}
	if delivery != "" {
		h.seen.add(delivery, h.cfg.Now())
	}
	h.cfg.Logger.Debug("webhook delivery", "event", event, "delivery", delivery, "monitors", n)
	if n > 0 {
		h.cfg.Counted(event, ResultSignalled)
	} else {
		h.cfg.Counted(event, ResultIgnored)
	}
	writeText(w, http.StatusAccepted, fmt.Sprintf("signalled %d monitor(s)\n", n))
}

// verified reads the body within the cap and checks its signature. Only a sha256 signature in
// X-Hub-Signature-256 is accepted (go-github would fall back to the SHA-1 header).
func (h *Handler) verified(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	sig := r.Header.Get(github.SHA256SignatureHeader)
	if !strings.HasPrefix(sig, "sha256=") {
		return nil, http.StatusUnauthorized, errors.New("no X-Hub-Signature-256 signature")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, http.StatusRequestEntityTooLarge, err
		}
		return nil, http.StatusBadRequest, err
	}
	if err := github.ValidateSignature(sig, body, h.cfg.Secret); err != nil {
		return nil, http.StatusUnauthorized, err
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	payload, err := github.ValidatePayloadFromBody(ct, bytes.NewReader(body), sig, h.cfg.Secret)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return payload, 0, nil
}

func writeText(w http.ResponseWriter, status int, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, s)
}

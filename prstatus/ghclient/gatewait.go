package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// The transport's side of the Gate: every request to a GitHub API host waits for the gate to
// open, and every rate-limited answer (and every answer that says a resource is used up) closes
// it for as long as GitHub said.

// resource is the rate-limit resource a request to GitHub counts against, or "" for a request
// that does not go to the API (a job-log download from blob storage).
func (t *transport) resource(req *http.Request, gql bool) string {
	switch {
	case gql:
		return "graphql"
	case t.authHosts[req.URL.Scheme+"://"+strings.ToLower(req.URL.Host)]:
		return "core"
	}
	return ""
}

// passGate waits for the gate to open for a request to resource. A hold longer than the policy's
// patience, or one that would outlast ctx's deadline, is not waited out: the request is not sent,
// and a *RateLimitError with HeldBack set says for how long.
func (t *transport) passGate(ctx context.Context, resource string) error {
	if resource == "" {
		return nil
	}
	h, ok := t.gate.NotBefore(resource)
	if !ok {
		return nil
	}
	wait := h.Until.Sub(t.now())
	if wait > t.retry.MaxRateLimitWait || !fits(ctx, wait) {
		return &RateLimitError{RetryAfter: wait, HeldBack: true, Message: h.Reason}
	}
	t.log.LogAttrs(ctx, slog.LevelDebug, "waiting for GitHub's rate limit", slog.Duration("wait", wait), slog.String("reason", h.Reason))
	if err := t.sleep(ctx, wait); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("wait for the rate limit: %w", scrubError(t.token, err))
	}
	t.gate.served(resource, h.Until)
	return nil
}

// hold closes the gate after a rate-limited answer: a secondary limit or a Retry-After holds the
// whole token, a used-up primary limit its resource. Never for less than a second.
func (t *transport) hold(err error, resource string) {
	var rl *RateLimitError
	if resource == "" || !errors.As(err, &rl) || rl.HeldBack {
		return
	}
	scope, what := ScopeToken, "secondary rate limit"
	if !rl.Secondary {
		scope, what = resource, "the "+resource+" rate limit is used up"
	}
	if rl.Message != "" {
		what += " (GitHub: " + rl.Message + ")"
	}
	t.gate.Hold(scope, t.now().Add(max(rl.RetryAfter, time.Second)), what)
}

// holdExhausted closes the gate for a resource whose successful answer said nothing is left of
// it, until its reset: the next request would only be refused.
func (t *transport) holdExhausted(h http.Header, resource string) {
	info, ok := rateLimitFromHeaders(h, t.now())
	if resource == "" || !ok || info.Remaining > 0 || !info.ResetAt.After(info.ObservedAt) {
		return
	}
	if info.Resource != "" {
		resource = info.Resource
	}
	t.gate.Hold(resource, info.ResetAt, "the "+resource+" rate limit is used up until its reset")
}

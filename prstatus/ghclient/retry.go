package ghclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"
)

// RetryPolicy bounds how the transport retries idempotent requests (GraphQL queries, REST GET
// and HEAD). Mutations are never retried by the transport.
type RetryPolicy struct {
	// MaxAttempts is the most attempts per request, the first included. 1 disables retries.
	MaxAttempts int
	// BaseDelay is the backoff before the second attempt; it doubles each time.
	BaseDelay time.Duration
	// MaxDelay caps one backoff.
	MaxDelay time.Duration
	// MaxRateLimitWait is the longest Retry-After or rate-limit reset the transport waits out by
	// itself. A longer one is returned at once as a *RateLimitError for the caller to schedule.
	MaxRateLimitWait time.Duration
	// AttemptTimeout bounds one attempt (connect to last byte of a buffered GraphQL response, or to
	// the response headers of a streamed one); a timed-out attempt counts as unavailable and is
	// retried. 0 means no per-attempt limit beyond the request's context.
	AttemptTimeout time.Duration
	// LateAnswerWait is how long an answer is still awaited once its sender stopped waiting (a
	// call's deadline, a cancellation), for the rate limit it may name (late.go): GitHub's rate
	// limiter answers before any work, so such an answer is on its way by then. 0 means 5s; a
	// negative value stops at once (the request is abandoned, its answer never read).
	LateAnswerWait time.Duration
}

// DefaultRetryPolicy is what New uses for zero fields: 4 attempts, 1s doubling to at most 15s,
// wait out rate limits up to 90s, 30s per attempt (GitHub itself gives up on a query after 10s),
// an answer read up to 5s after its sender stopped waiting.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:      4,
		BaseDelay:        time.Second,
		MaxDelay:         15 * time.Second,
		MaxRateLimitWait: 90 * time.Second,
		AttemptTimeout:   30 * time.Second,
		LateAnswerWait:   5 * time.Second,
	}
}

// withDefaults fills zero fields from DefaultRetryPolicy.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxRateLimitWait < 0 {
		p.MaxRateLimitWait = 0
	} else if p.MaxRateLimitWait == 0 {
		p.MaxRateLimitWait = d.MaxRateLimitWait
	}
	if p.LateAnswerWait == 0 {
		p.LateAnswerWait = d.LateAnswerWait
	}
	if p.AttemptTimeout < 0 {
		p.AttemptTimeout = 0
	} else if p.AttemptTimeout == 0 {
		p.AttemptTimeout = d.AttemptTimeout
	}
	return p
}

// backoff is the wait before attempt+1 (attempt counts from 1): BaseDelay·2^(attempt-1), capped
// at MaxDelay, then "equal jitter": half fixed, half random, so clients that failed together do
// not retry together.
func (p RetryPolicy) backoff(attempt int, jitter func(time.Duration) time.Duration) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + jitter(d-half)
}

// retryDecision says whether and how long to wait before another attempt after err.
//
//   - a rate limit is waited out when its wait fits MaxRateLimitWait, else returned at once;
//   - unavailability (5xx, timeouts, connection failures) backs off exponentially, except a
//     501 and certificate failures, which no retry fixes;
//   - everything else (401, 403, 404, other statuses, the caller's context) is final.
func (p RetryPolicy) retryDecision(err error, attempt int, jitter func(time.Duration) time.Duration) (time.Duration, bool) {
	if attempt >= p.MaxAttempts {
		return 0, false
	}
	var rl *RateLimitError
	if errors.As(err, &rl) {
		if rl.RetryAfter > p.MaxRateLimitWait {
			return 0, false
		}
		// Never retry in the same instant: a reset time already passed still gets a second.
		return max(rl.RetryAfter, time.Second), true
	}
	if !errors.Is(err, ErrUnavailable) || !retryable(err) {
		return 0, false
	}
	return p.backoff(attempt, jitter), true
}

// retryable reports whether an unavailability may go away by itself.
func retryable(err error) bool {
	var st *statusError
	if errors.As(err, &st) && st.code == 501 {
		return false
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	return !errors.As(err, &certErr) && !errors.As(err, &unknownAuthority) && !errors.As(err, &hostname)
}

// timeoutError marks an ErrUnavailable that is a timeout: no answer within the attempt's time, or
// GitHub saying its query timed out. GitHub counts timeouts against the primary rate limit
// (https://github.blog/changelog/2025-07-21-including-timeouts-in-primary-rate-limits), so the
// request log counts them (RequestLog.TimedOut).
type timeoutError struct{}

func (*timeoutError) Error() string { return "timed out" }

// isTimeout reports whether err is a timeout: a timeoutError, or GitHub's 502 and 504, which its
// front end answers when the backend did not in time.
func isTimeout(err error) bool {
	var te *timeoutError
	var st *statusError
	return errors.As(err, &te) || (errors.As(err, &st) && (st.code == 502 || st.code == 504))
}

// statusError records the HTTP status behind an ErrUnavailable.
type statusError struct{ code int }

func (e *statusError) Error() string { return "HTTP " + strconv.Itoa(e.code) }

// defaultJitter returns a uniformly random duration in [0, d).
func defaultJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}

// sleepContext waits for d or until ctx is done, whichever comes first.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

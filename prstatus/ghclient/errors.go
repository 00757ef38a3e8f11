package ghclient

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Errors the CLI and the MCP server tell apart with errors.Is. Every error from this package that
// stems from one of these conditions wraps the matching sentinel.
var (
	// ErrNoToken: no token in GITHUB_TOKEN or GH_TOKEN, and `gh auth token` gave none.
	ErrNoToken = errors.New("no GitHub token found: set GITHUB_TOKEN or GH_TOKEN, or sign in with `gh auth login`")
	// ErrUnauthorized: GitHub refused the token (HTTP 401): it is wrong, expired or revoked.
	ErrUnauthorized = errors.New("GitHub rejected the token (401): it is invalid, expired or revoked")
	// ErrForbidden: the token is valid but may not do this (HTTP 403 without a rate limit, or a
	// GraphQL FORBIDDEN / INSUFFICIENT_SCOPES error).
	ErrForbidden = errors.New("GitHub refused access (403): the token lacks a permission or scope")
	// ErrNotFound: no such repository or pull request, or the token cannot see it (HTTP 404, or a
	// GraphQL NOT_FOUND error, which GitHub sends with HTTP 200).
	ErrNotFound = errors.New("not found on GitHub (or not visible to this token)")
	// ErrUnavailable: GitHub could not be reached or failed (5xx, connection failure, timeout).
	// Transient: try again later.
	ErrUnavailable = errors.New("GitHub is unavailable")
	// ErrRateLimited is matched by every *RateLimitError.
	ErrRateLimited = errors.New("GitHub rate limit exceeded")
)

// RateLimitError says GitHub asked us to slow down (403/429 with Retry-After or
// x-ratelimit-remaining: 0, or a GraphQL RATE_LIMITED error) and for how long. errors.Is(err,
// ErrRateLimited) matches it.
type RateLimitError struct {
	// ResetAt is when the primary limit resets (x-ratelimit-reset), zero when unknown.
	ResetAt time.Time
	// RetryAfter is how long GitHub asked us to wait, from Retry-After or, failing that, from
	// ResetAt at the time of the response. Zero when GitHub said neither.
	RetryAfter time.Duration
	// Secondary is true for a secondary (abuse) rate limit, false for the primary one.
	Secondary bool
	// Message is GitHub's explanation, sanitised and shortened.
	Message string
	// HeldBack is true when no request was sent: an earlier answer from GitHub, kept by the
	// client's Gate, still holds (Message says which), for longer than the client may wait.
	HeldBack bool
}

func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString(ErrRateLimited.Error())
	if e.Secondary {
		b.WriteString(" (secondary limit)")
	}
	if e.HeldBack {
		b.WriteString("; not sent: GitHub asked to wait")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter.Round(time.Second))
	}
	if !e.ResetAt.IsZero() {
		fmt.Fprintf(&b, "; resets at %s", e.ResetAt.UTC().Format(time.RFC3339))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrRateLimited) true for every *RateLimitError.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// apiError is a classified failure: one of the sentinels, a one-line detail from GitHub, and the
// underlying cause (a transport error), if any. Its message never contains the token: it is
// scrubbed when built.
type apiError struct {
	kind  error  // a sentinel
	msg   string // the full, scrubbed, one-line message
	cause error  // may be nil
}

func (e *apiError) Error() string { return e.msg }

// Unwrap exposes both the sentinel and the cause to errors.Is and errors.As.
func (e *apiError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// newAPIError builds a classified error. detail is untrusted (GitHub's message or a transport
// error) and is cleaned and scrubbed of the token.
func newAPIError(kind error, tok Token, detail string, cause error) error {
	msg := kind.Error()
	if d := oneLine(tok.scrub(detail)); d != "" {
		msg += ": " + d
	}
	return &apiError{kind: kind, msg: msg, cause: cause}
}

// scrubbedError hides the token in an error from a lower layer (githubv4, net/http) while keeping
// the chain for errors.Is and errors.As.
type scrubbedError struct {
	msg   string
	cause error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.cause }

// scrubError returns err with the token removed from its message and the message folded onto one
// line. It returns nil for nil.
func scrubError(tok Token, err error) error {
	if err == nil {
		return nil
	}
	msg := oneLine(tok.scrub(err.Error()))
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, cause: err}
}

// maxDetail bounds the part of an error message that comes from GitHub.
const maxDetail = 300

// oneLine folds s onto one line, drops control and invisible characters and shortens it to
// maxDetail bytes.
func oneLine(s string) string { return text.ClipBytes(sanitize.Line(s), maxDetail) }

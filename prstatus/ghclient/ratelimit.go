package ghclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimitInfo is what GitHub's x-ratelimit-* response headers said last.
type RateLimitInfo struct {
	// Resource is the limit the headers describe: "graphql", "core" (REST), "search", ...
	Resource  string
	Limit     int
	Remaining int
	Used      int
	// ResetAt is when the window resets.
	ResetAt time.Time
	// ObservedAt is when the response carrying these headers arrived (Config.Now).
	ObservedAt time.Time
}

// rateLimitFromHeaders reads the x-ratelimit-* headers; ok is false when they are absent.
func rateLimitFromHeaders(h http.Header, now time.Time) (RateLimitInfo, bool) {
	remaining, ok := headerInt(h, "X-Ratelimit-Remaining")
	if !ok {
		return RateLimitInfo{}, false
	}
	info := RateLimitInfo{Resource: h.Get("X-Ratelimit-Resource"), Remaining: remaining, ObservedAt: now}
	info.Limit, _ = headerInt(h, "X-Ratelimit-Limit")
	info.Used, _ = headerInt(h, "X-Ratelimit-Used")
	if reset, ok := headerInt(h, "X-Ratelimit-Reset"); ok && reset > 0 {
		info.ResetAt = time.Unix(int64(reset), 0).UTC()
	}
	return info, true
}

func headerInt(h http.Header, key string) (int, bool) {
	v := strings.TrimSpace(h.Get(key))
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return n, true
}

// retryAfter parses a Retry-After header: delta seconds or an HTTP date. ok is false when the
// header is absent or malformed.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// secondaryLimitWait is how long to wait after a secondary rate limit that named no time: GitHub
// asks for "at least one minute".
const secondaryLimitWait = time.Minute

// rateLimitError builds the error for a rate-limited response. ok is false when the response does
// not look rate-limited (no Retry-After, remaining not 0, no rate-limit wording) unless force says
// it is (HTTP 429, GraphQL RATE_LIMITED).
func rateLimitError(h http.Header, message string, now time.Time, force bool) (*RateLimitError, bool) {
	e := &RateLimitError{Message: message}
	info, hasInfo := rateLimitFromHeaders(h, now)
	if hasInfo {
		e.ResetAt = info.ResetAt
	}
	after, hasAfter := retryAfter(h, now)
	exhausted := hasInfo && info.Remaining == 0
	worded := strings.Contains(strings.ToLower(message), "rate limit")
	if !hasAfter && !exhausted && !worded && !force {
		return nil, false
	}
	switch {
	case hasAfter:
		e.RetryAfter = after
		e.Secondary = !exhausted
	case exhausted && !e.ResetAt.IsZero():
		e.RetryAfter = max(e.ResetAt.Sub(now), 0)
	default:
		e.RetryAfter = secondaryLimitWait
		e.Secondary = true
	}
	return e, true
}

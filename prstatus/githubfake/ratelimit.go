package githubfake

import (
	"net/http"
	"strconv"
	"time"
)

// rateWindow is one primary rate limit (GraphQL points or REST requests) over an hour of fake
// time. The fake's lock guards it.
type rateWindow struct {
	limit    int
	used     int
	resetAt  time.Time
	resource string
}

// roll starts a new hour when the old one has passed.
func (w *rateWindow) roll(now time.Time) {
	if w.resetAt.IsZero() || !now.Before(w.resetAt) {
		w.used = 0
		w.resetAt = now.Add(time.Hour).Truncate(time.Second)
	}
}

func (w *rateWindow) remaining() int {
	if r := w.limit - w.used; r > 0 {
		return r
	}
	return 0
}

func (w *rateWindow) exhausted(now time.Time) bool {
	w.roll(now)
	return w.remaining() == 0
}

func (w *rateWindow) charge(now time.Time, points int) {
	w.roll(now)
	w.used += points
	if w.used > w.limit {
		w.used = w.limit
	}
}

// rateHeaders are the x-ratelimit-* headers of a window as of now.
type rateHeaders struct {
	limit, remaining, used int
	reset                  int64
	resource               string
}

func (w *rateWindow) headers(now time.Time) rateHeaders {
	w.roll(now)
	return rateHeaders{limit: w.limit, remaining: w.remaining(), used: w.used, reset: w.resetAt.Unix(), resource: w.resource}
}

func (h rateHeaders) set(w http.ResponseWriter) {
	w.Header().Set("X-Ratelimit-Limit", strconv.Itoa(h.limit))
	w.Header().Set("X-Ratelimit-Remaining", strconv.Itoa(h.remaining))
	w.Header().Set("X-Ratelimit-Used", strconv.Itoa(h.used))
	w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(h.reset, 10))
	w.Header().Set("X-Ratelimit-Resource", h.resource)
}

// RateLimitRemaining reports the GraphQL points and REST requests left in the current hour.
func (f *Fake) RateLimitRemaining() (graphql, rest int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.now()
	f.graphqlRate.roll(now)
	f.restRate.roll(now)
	return f.graphqlRate.remaining(), f.restRate.remaining()
}

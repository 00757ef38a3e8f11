package ghclient

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Writes are paced per token, across every client and monitor that shares its Gate, as GitHub
// asks of integrations (Config.WritePace; a GitHub on the loopback interface, the simulated one
// of the demo and the tests, is not paced unless configured) (https://docs.github.com/rest/using-the-rest-api/best-practices-for-using-the-rest-api
// and its secondary rate limits): at least a second between two writes (a mutation, a POST, PATCH,
// PUT or DELETE), and content-creating requests (comments, replies, reviews, issues, pull
// requests) kept under 80 a minute and 500 an hour, with a margin for the user's own use of the
// token. Every write passes the pace in the transport (paceWrite), whichever method sends it (the
// write loop's sends, Merge, the dispatcher's writes through REST). A write that would have to
// wait longer than the retry policy's patience, or than its context allows, is not sent: it fails
// with a *RateLimitError with HeldBack set, and the Gate's WritePacing says until when.

// Pacing limits on GitHub.
const (
	// WriteGap is the least time between two writes of a token.
	WriteGap = time.Second
	// ContentPerMinute and ContentPerHour bound content-creating writes (GitHub: 80 and 500).
	ContentPerMinute = 75
	ContentPerHour   = 480
)

// WritePace is how writes are paced: Gap between two writes, and at most PerMinute and PerHour
// content-creating writes (0: no bound).
type WritePace struct {
	Gap                time.Duration
	PerMinute, PerHour int
}

// GitHubWritePace is the pace GitHub asks for (the constants above).
func GitHubWritePace() WritePace {
	return WritePace{Gap: WriteGap, PerMinute: ContentPerMinute, PerHour: ContentPerHour}
}

// writePaceFor is the pace of a client of the REST root rest: GitHub's, but for a GitHub on the
// loopback interface (the simulated GitHub of the demo and the tests, which has no secondary
// limits), which is not paced unless configured.
func writePaceFor(rest string) WritePace {
	u, err := url.Parse(rest)
	if err != nil {
		return GitHubWritePace()
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return WritePace{}
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return WritePace{}
	}
	return GitHubWritePace()
}

// WritePacing is the state of a token's write pacing.
type WritePacing struct {
	// NextWrite is the earliest time the next write may go (WriteGap after the last one).
	NextWrite time.Time
	// ContentLastMinute and ContentLastHour count the content-creating writes sent (or reserved)
	// in the minute and the hour up to now.
	ContentLastMinute, ContentLastHour int
	// HeldUntil is set while a write was held back for longer than its caller could wait: it may
	// go then. Reason says why. Zero when nothing is held back.
	HeldUntil time.Time
	Reason    string
}

// pacer is the Gate's record of the token's writes. The Gate's lock guards it.
type pacer struct {
	gap      time.Duration // the gap of the last write's pace
	last     time.Time     // when the last write was allowed to go
	content  []time.Time   // when each content-creating write of the last hour went, oldest first
	heldTill time.Time
	heldWhy  string
}

// slot is when a write at now may go at pace, and why it waits (empty: no wait).
func (p *pacer) slot(now time.Time, content bool, pace WritePace) (time.Time, string) {
	at, why := now, ""
	if next := p.last.Add(pace.Gap); !p.last.IsZero() && next.After(at) {
		at, why = next, fmt.Sprintf("%s between two writes", pace.Gap)
	}
	if !content {
		return at, why
	}
	for _, w := range []struct {
		limit  int
		window time.Duration
		what   string
	}{{pace.PerMinute, time.Minute, "a minute"}, {pace.PerHour, time.Hour, "an hour"}} {
		in := p.within(at, w.window)
		if w.limit > 0 && len(in) >= w.limit {
			// The oldest write that keeps the window full leaves it one window after it went.
			if free := in[len(in)-w.limit].Add(w.window); free.After(at) {
				at, why = free, fmt.Sprintf("at most %d comments, replies or reviews %s", w.limit, w.what)
			}
		}
	}
	return at, why
}

// within are the content writes in the window that ends at t.
func (p *pacer) within(t time.Time, window time.Duration) []time.Time {
	i := 0
	for i < len(p.content) && !p.content[i].After(t.Add(-window)) {
		i++
	}
	return p.content[i:]
}

// reserve takes the slot at for a write at a pace with the given gap.
func (p *pacer) reserve(at time.Time, content bool, gap time.Duration) {
	p.last, p.gap = at, gap
	if content {
		p.content = append(p.content, at)
		p.content = p.within(at, time.Hour)
	}
	p.heldTill, p.heldWhy = time.Time{}, ""
}

// WritePacing reports the token's write pacing as of now.
func (g *Gate) WritePacing() WritePacing {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	wp := WritePacing{
		ContentLastMinute: len(g.pace.within(now, time.Minute)),
		ContentLastHour:   len(g.pace.within(now, time.Hour)),
	}
	if !g.pace.last.IsZero() {
		wp.NextWrite = g.pace.last.Add(g.pace.gap)
	}
	if g.pace.heldTill.After(now) {
		wp.HeldUntil, wp.Reason = g.pace.heldTill, g.pace.heldWhy
	}
	return wp
}

// takeWriteSlot reserves when a write may go, unless it would wait longer than patience: then it
// reserves nothing, records the hold for WritePacing and reports ok false.
func (g *Gate) takeWriteSlot(content bool, pace WritePace, patience func(time.Duration) bool) (wait time.Duration, why string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	at, why := g.pace.slot(now, content, pace)
	wait = max(at.Sub(now), 0)
	if !patience(wait) {
		g.pace.heldTill, g.pace.heldWhy = at, why
		return wait, why, false
	}
	g.pace.reserve(at, content, pace.Gap)
	return wait, why, true
}

// paceWrite waits for the token's next write slot before a write is sent.
func (t *transport) paceWrite(ctx context.Context, req *http.Request) error {
	content := marked(ctx, markContent) || contentCreating(req)
	wait, why, ok := t.gate.takeWriteSlot(content, t.pace, func(d time.Duration) bool {
		return d <= t.retry.MaxRateLimitWait && fits(ctx, d)
	})
	if !ok {
		return &RateLimitError{RetryAfter: wait, HeldBack: true, Message: "prmonitor paces its writes: " + why}
	}
	if wait <= 0 {
		return nil
	}
	t.log.LogAttrs(ctx, slog.LevelDebug, "pacing a write", slog.Duration("wait", wait), slog.String("reason", why))
	if err := t.sleep(ctx, wait); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("wait to pace a write: %w", scrubError(t.token, err))
	}
	return nil
}

// contentCreating reports whether a REST request creates content GitHub's secondary limits count
// as such: a comment, a reply, a review, an issue, a pull request.
func contentCreating(req *http.Request) bool {
	if req.Method != http.MethodPost {
		return false
	}
	p := strings.TrimRight(req.URL.Path, "/")
	for _, suffix := range []string{"/comments", "/replies", "/reviews", "/issues", "/pulls"} {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return false
}

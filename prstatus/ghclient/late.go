package ghclient

import (
	"context"
	"io"
	"net/http"
	"time"
)

// A request that has gone out has been seen by GitHub, whether or not its sender still waits for
// the answer: a call that reached its deadline, a superseded call, a shutdown. When the answer is
// a rate limit, GitHub expects nothing more before the time it named; a sender that stopped
// waiting must not be the reason the next request goes out anyway. So the transport reads every
// answer to its status line, and a late one still closes the gate (docs/watcher.md#the-budget-governor).

// sent is what the base transport said of one request.
type sent struct {
	resp *http.Response
	err  error
}

// A write is different for its sender too: GitHub may have acted on it, and a sender that never
// learns whether it did sends it again later (the next call's review request, its read before a
// reply). So a sender that stops waiting during a write still gets the write's answer, if it comes
// within the policy's LateAnswerWait; no retry follows (the sender has stopped waiting).

// send hands r (whose context is detached from ctx's cancellation) to the base transport and
// returns its answer, or ctx's cause as soon as ctx ends first (late true): the answer is then
// read in the background (late), and cancel, which late then owns, ends r when it comes, or
// after the policy's LateAnswerWait. A write's answer that comes within LateAnswerWait of ctx's
// end is returned as if ctx had not ended.
func (t *transport) send(ctx context.Context, r *http.Request, cancel context.CancelFunc, gql, write bool) (resp *http.Response, late bool, err error) {
	done := make(chan sent, 1)
	go func() {
		resp, err := t.base.RoundTrip(r)
		done <- sent{resp, err}
	}()
	select {
	case s := <-done:
		return s.resp, false, s.err
	case <-ctx.Done():
		wait := t.retry.LateAnswerWait
		if write && wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case s := <-done:
				timer.Stop()
				return s.resp, false, s.err
			case <-timer.C:
				wait = 0 // waited for already: r ends now
			}
		}
		if t.retry.LateAnswerWait < 0 { // abandoned: the caller's cancel ends r
			go func() {
				if s := <-done; s.err == nil {
					_ = s.resp.Body.Close()
				}
			}()
			return nil, false, context.Cause(ctx)
		}
		stop := time.AfterFunc(wait, cancel)
		go func() { t.late(done, t.resource(r, gql)); stop.Stop(); cancel() }()
		return nil, true, context.Cause(ctx)
	}
}

// late reads the answer to a request whose sender stopped waiting, for what it says of the rate
// limit: a 403 or 429 that is one closes the gate; a success that used the resource up holds it
// until its reset.
func (t *transport) late(done <-chan sent, resource string) {
	s := <-done
	if s.err != nil {
		return
	}
	defer s.resp.Body.Close()
	if info, ok := rateLimitFromHeaders(s.resp.Header, t.now()); ok {
		t.mu.Lock()
		t.last, t.seen = info, true
		t.mu.Unlock()
	}
	switch s.resp.StatusCode {
	case http.StatusForbidden, http.StatusTooManyRequests:
		data, _ := io.ReadAll(io.LimitReader(s.resp.Body, maxErrorBody))
		t.hold(classifyStatus(s.resp, data, t.now(), t.token), resource)
	default:
		t.holdExhausted(s.resp.Header, resource)
	}
}

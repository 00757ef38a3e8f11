package ghclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARateLimitAnsweredAfterTheSenderGaveUpStillClosesTheGate: a query goes out, its caller's
// deadline comes before GitHub answers (a call's bound on a busy machine), and GitHub answers
// 429 with Retry-After: 3600. The caller has its own error at once; the answer is still read, and
// no request goes out within the hour (the path that let a second request through under load).
func TestARateLimitAnsweredAfterTheSenderGaveUpStillClosesTheGate(t *testing.T) {
	for _, tt := range []struct {
		name    string
		attempt time.Duration // the policy's per-attempt limit (-1: none)
	}{{"with a per-attempt limit", 30 * time.Second}, {"without one", -1}} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, answer := make(chan struct{}, 1), make(chan struct{})
			gh := &counting{next: func(w http.ResponseWriter, r *http.Request) {
				select {
				case arrived <- struct{}{}:
				default:
				}
				<-answer
				status(429, "Retry-After", "3600")(w, r)
			}}
			c, _, _ := testClient(t, gh, func(cfg *Config) { cfg.Retry.AttemptTimeout = tt.attempt })
			defer close(answer) // a request still held by the server ends with the test

			ctx, cancel := context.WithCancelCause(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- query(t, c, ctx) }()
			<-arrived // GitHub has the request
			gaveUp := errors.New("the call's deadline")
			cancel(gaveUp)
			require.ErrorIs(t, <-errc, gaveUp, "the caller does not wait for the answer")
			_, held := c.transport.gate.NotBefore("graphql")
			require.False(t, held, "nothing is known yet")

			answer <- struct{}{} // GitHub answers now: 429, an hour
			require.Eventually(t, func() bool {
				_, held := c.transport.gate.NotBefore("graphql")
				return held
			}, 30*time.Second, 5*time.Millisecond, "the late answer closed the gate")

			err := query(t, c, t.Context())
			var rl *RateLimitError
			require.ErrorAs(t, err, &rl)
			assert.True(t, rl.HeldBack, "the next query is held back, not sent")
			assert.Equal(t, 1, gh.count(), "one request reached GitHub")
		})
	}
}

// TestAnAnswerThatNeverComesIsAbandonedAfterTheLateWait: GitHub holds a query whose sender gave
// up; the transport ends the request after LateAnswerWait (GitHub sees the connection close), and
// with a negative wait at once, as before there was a late read.
func TestAnAnswerThatNeverComesIsAbandonedAfterTheLateWait(t *testing.T) {
	for _, tt := range []struct {
		name string
		wait time.Duration
	}{{"after the late wait", 50 * time.Millisecond}, {"at once, with a negative wait", -1}} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, ended := make(chan struct{}, 1), make(chan struct{})
			gh := &counting{next: func(_ http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				<-r.Context().Done() // the client closed the connection
				close(ended)
			}}
			c, _, _ := testClient(t, gh, func(cfg *Config) { cfg.Retry.LateAnswerWait = tt.wait })
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- query(t, c, ctx) }()
			<-arrived
			cancel()
			require.ErrorIs(t, <-errc, context.Canceled)
			select {
			case <-ended:
			case <-time.After(30 * time.Second):
				t.Fatal("the request was never ended")
			}
			_, held := c.transport.gate.NotBefore("graphql")
			assert.False(t, held, "no answer, no hold")
		})
	}
}

// TestAWriteAnsweredAfterTheSenderGaveUpIsDoneForIt: a review request goes out and its caller's
// deadline comes before GitHub answers. A write GitHub may have acted on is awaited past it, for
// LateAnswerWait: answered within the wait, the caller learns it landed (nil) and nothing is sent
// again; not answered by then, the caller gets its own cause and no second attempt goes out.
func TestAWriteAnsweredAfterTheSenderGaveUpIsDoneForIt(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answers bool
	}{{"answered within the wait", true}, {"not answered within it", false}} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, answer := make(chan struct{}, 1), make(chan struct{})
			gh := &counting{next: func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select {
				case <-answer:
					w.WriteHeader(http.StatusCreated)
					_, _ = w.Write([]byte(`{}`))
				case <-r.Context().Done(): // the client closed the connection
				}
			}}
			wait := time.Minute
			if !tt.answers {
				wait = 50 * time.Millisecond
			}
			c, _, _ := testClient(t, gh, func(cfg *Config) { cfg.Retry.LateAnswerWait = wait })
			defer close(answer)

			ctx, cancel := context.WithCancelCause(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- c.RequestReviews(ctx, testRef, []string{"carol"}) }()
			<-arrived // GitHub has the request
			gaveUp := errors.New("the call's deadline")
			cancel(gaveUp)
			if tt.answers {
				answer <- struct{}{}
				require.NoError(t, <-errc, "the write landed, and the caller knows it")
			} else {
				require.ErrorIs(t, <-errc, gaveUp)
			}
			assert.Equal(t, 1, gh.count(), "one request reached GitHub")
		})
	}
}

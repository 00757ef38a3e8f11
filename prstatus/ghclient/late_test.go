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
		attempt time.Duration // the policy's per-attempt limit (0: none)
	}{{"with a per-attempt limit", 30 * time.Second}, {"without one", -1}} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, answer := make(chan struct{}), make(chan struct{})
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

package ghclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrite drives the one retry loop of every write with scripted attempt outcomes.
func TestWrite(t *testing.T) {
	var (
		e502     = newAPIError(ErrUnavailable, Token{}, "HTTP 502", &statusError{code: 502})
		limited  = &RateLimitError{RetryAfter: 2 * time.Second, Secondary: true}
		noDial   = newAPIError(ErrUnavailable, Token{}, "dial tcp: connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")})
		refused  = &RESTStatusError{Status: 422, Message: "Validation Failed"}
		unknown  = errors.New("read failed")
		deadline = 100 * time.Millisecond
	)
	tests := []struct {
		name      string
		sends     []error // each attempt's outcome; the last repeats
		retryable func(error) bool
		landed    []bool // each check's answer; nil: no check (repeating is harmless)
		landedErr error
		deadline  bool // the call has a deadline shorter than any backoff
		wantIs    error
		wantText  string
		wantSends int
		wantAsked int
		wantWaits []time.Duration
	}{
		{name: "done at once", sends: []error{nil}, landed: []bool{false}, wantSends: 1},
		{
			name: "a 502: asked whether it landed, then sent again", sends: []error{e502, nil}, landed: []bool{false},
			wantSends: 2, wantAsked: 1, wantWaits: []time.Duration{500 * time.Millisecond},
		},
		{name: "a 502 that landed: not sent again", sends: []error{e502}, landed: []bool{true}, wantSends: 1, wantAsked: 1, wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "harmless to repeat: sent again without asking", sends: []error{e502, nil}, wantSends: 2, wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "a rate limit: the gate waits, nobody asks", sends: []error{limited, nil}, landed: []bool{true}, wantSends: 2},
		{name: "no connection made: sent again without asking", sends: []error{noDial, nil}, landed: []bool{true}, wantSends: 2, wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "a refusal is final", sends: []error{refused}, landed: []bool{true}, wantIs: refused, wantText: "send it: GitHub answered HTTP 422", wantSends: 1},
		{name: "retryable narrows what is tried again", sends: []error{e502}, retryable: func(error) bool { return false }, landed: []bool{true}, wantIs: ErrUnavailable, wantSends: 1},
		{
			name: "attempts are bounded by the policy, asking before each", sends: []error{e502}, landed: []bool{false},
			wantIs: ErrUnavailable, wantSends: 4, wantAsked: 3,
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		{
			name: "the check cannot tell: the attempt's error, and why", sends: []error{e502}, landed: []bool{false}, landedErr: unknown,
			wantIs: ErrUnavailable, wantText: "send it: GitHub is unavailable: HTTP 502 (and read failed)", wantSends: 1, wantAsked: 1,
			wantWaits: []time.Duration{500 * time.Millisecond},
		},
		{name: "no wait past the call's deadline", sends: []error{e502}, landed: []bool{false}, deadline: true, wantIs: ErrUnavailable, wantSends: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sl, _ := testClient(t, http.HandlerFunc(status(200)))
			ctx := t.Context()
			if tt.deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, deadline)
				defer cancel()
			}
			sends, asked := 0, 0
			w := write{
				what: "send it",
				send: func(_ context.Context, attempt int) error {
					sends++
					assert.Equal(t, sends, attempt)
					return tt.sends[min(sends, len(tt.sends))-1]
				},
				retryable: tt.retryable,
			}
			if tt.landed != nil {
				w.landed = func(context.Context) (bool, error) {
					asked++
					return tt.landed[min(asked, len(tt.landed))-1], tt.landedErr
				}
			}
			err := c.write(ctx, w)
			if tt.wantIs == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.wantIs)
				assert.Contains(t, err.Error(), tt.wantText)
				assert.NotErrorIs(t, err, context.DeadlineExceeded)
			}
			assert.Equal(t, tt.wantSends, sends, "attempts")
			assert.Equal(t, tt.wantAsked, asked, "did-it-land checks")
			assert.Equal(t, tt.wantWaits, sl.recorded(), "waits")
		})
	}
}

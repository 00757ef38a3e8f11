package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Drain bounds a graceful shutdown: Settle is how long the calls and deliveries in flight get to
// finish on their own once the server stops accepting; then the requests still running (a call
// that waits for news, a stream) see their context end, so each answers what it would at the end
// of its wait, and Cut is how long they get to do so.
type Drain struct {
	Settle, Cut time.Duration
}

// DefaultDrain gives a webhook delivery or a tool call, which take seconds, time to finish; a wait
// answers at once when cut.
var DefaultDrain = Drain{Settle: 10 * time.Second, Cut: 5 * time.Second}

// Serve serves srv on ln until ctx ends, then drains it (Drain). srv.BaseContext is replaced: the
// requests' contexts end when the drain cuts them, not when ctx does. ready, when set, is called
// once the listener accepts.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, d Drain) error {
	base, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	srv.BaseContext = func(net.Listener) context.Context { return base }
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	settle, cancel := context.WithTimeout(context.Background(), d.Settle)
	err := srv.Shutdown(settle)
	cancel()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	cut()
	last, cancel := context.WithTimeout(context.Background(), d.Cut)
	defer cancel()
	if err := srv.Shutdown(last); err != nil && !errors.Is(err, net.ErrClosed) {
		_ = srv.Close()
		return fmt.Errorf("drain %s: %w", ln.Addr(), err)
	}
	return nil
}

// RunAll runs each server until ctx ends or one of them fails, which ends the others too, and
// returns their errors once all returned.
func RunAll(ctx context.Context, servers ...func(context.Context) error) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, len(servers))
	for _, serve := range servers {
		go func() { errc <- serve(ctx) }()
	}
	var errs []error
	for range servers {
		if err := <-errc; err != nil {
			errs = append(errs, err)
			stop()
		}
	}
	return errors.Join(errs...)
}

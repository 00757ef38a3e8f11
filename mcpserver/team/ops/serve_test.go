package ops

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The drain: a request in flight when the process is told to stop finishes and is answered in full;
// one that waits for news is cut and answers what its wait's end would; a new connection is refused.
func TestServeDrainsTheRequestsInFlightBeforeItReturns(t *testing.T) {
	inFlight, release := make(chan struct{}), make(chan struct{})
	waiting := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook", func(w http.ResponseWriter, _ *http.Request) {
		close(inFlight)
		<-release // the delivery is still being signalled when the stop comes
		_, _ = io.WriteString(w, "signalled 1 monitor(s)\n")
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		close(waiting)
		<-r.Context().Done() // a next_step call waiting for news: it answers when its wait ends
		_, _ = io.WriteString(w, "still watching; call again\n")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := "http://" + ln.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}, ln, Drain{Settle: 200 * time.Millisecond, Cut: 30 * time.Second})
	}()

	type answer struct {
		body string
		err  error
	}
	post := func(path string) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			resp, err := http.Post(addr+path, "text/plain", strings.NewReader("{}"))
			if err != nil {
				out <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			out <- answer{string(b), err}
		}()
		return out
	}
	delivery, call := post("/webhook"), post("/mcp")
	<-inFlight
	<-waiting
	stop()

	// the server has stopped accepting before the delivery in flight is done
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	}, 30*time.Second, 10*time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) with a delivery in flight", err)
	default:
	}
	close(release)

	d := <-delivery
	require.NoError(t, d.err)
	assert.Equal(t, "signalled 1 monitor(s)\n", d.body)
	c := <-call
	require.NoError(t, c.err)
	assert.Equal(t, "still watching; call again\n", c.body)
	assert.NoError(t, <-served)
}

func TestRunAllEndsTheOthersWhenOneFails(t *testing.T) {
	boom := errors.New("listener gone")
	done := make(chan struct{})
	err := RunAll(context.Background(),
		func(context.Context) error { return boom },
		func(ctx context.Context) error { <-ctx.Done(); close(done); return nil },
	)
	assert.ErrorIs(t, err, boom)
	<-done
}

package tests

import (
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// loadScheduler keeps every core busy until the test ends: the server's goroutines, the watcher's
// timers and the transport's gate then run late and out of their usual order, as on a machine
// whose cores another process saturates.
func loadScheduler(t *testing.T) {
	t.Helper()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				for i := range 1 << 16 {
					x ^= i * 31
				}
			}
			_ = x
		}()
	}
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
}

// TestUnderLoadNothingGoesToGitHubBeforeTheTimeItNamed: GitHub answers every GraphQL request with
// 429 and Retry-After: 3600 while both cores are busy, the watcher looks every 2 s and one
// next_step blocks. One request meets the 429; none follows it within the hour, whichever of the
// server's paths (the watcher's look, a snapshot, the call's own GitHub work) was under way.
func TestUnderLoadNothingGoesToGitHubBeforeTheTimeItNamed(t *testing.T) {
	for run := range 3 {
		t.Run("run "+string(rune('1'+run)), func(t *testing.T) {
			w := newWorld(t, profiles[1])
			w.block = "8s"
			w.flags = []string{"--poll-busy", "2s", "--poll-quiet", "2s", "--poll-other", "2s"}
			w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
			w.launch()
			w.start()
			loadScheduler(t)
			w.fake.InjectFault(githubfake.Fault{Match: githubfake.Match{Kind: githubfake.KindGraphQL}, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
			before := len(w.fake.Requests())
			for range 2 {
				act := w.next("ready", "", nil)
				require.Equal(t, "polling", act.Action, act.Message)
			}
			reqs := w.fake.Requests()[before:]
			met := slices.IndexFunc(reqs, func(r githubfake.Request) bool { return r.Status == http.StatusTooManyRequests })
			require.GreaterOrEqual(t, met, 0, "a request met the 429 within two calls of 8 s")
			var after []string
			for _, r := range reqs[met+1:] {
				if r.Kind == githubfake.KindGraphQL {
					after = append(after, r.Operation+" "+r.Path)
				}
			}
			assert.Empty(t, after, "no GraphQL request after the one that met the 429")
		})
	}
}

package mcpserver

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// memSeen is what a watcher saved of each pull request, kept in memory.
type memSeen struct {
	mu   sync.Mutex
	seen map[prstatus.PRRef]watch.Seen
}

func (m *memSeen) LoadSeen() (map[prstatus.PRRef]watch.Seen, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.seen), nil
}

func (m *memSeen) SaveSeen(seen map[prstatus.PRRef]watch.Seen) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	maps.Copy(m.seen, seen)
	return nil
}

// TestAResumedMonitorGetsTheChangeTheWatcherReadJustBeforeARestart: the watcher read a new review
// thread and saved what it saw, the server stopped before any call took that update, and the
// monitor's record is older. The restarted watcher's fingerprint has not moved since, so only a
// poke brings the change to the resumed monitor before a safety refresh; one whose record is newer
// than the read needs none.
func TestAResumedMonitorGetsTheChangeTheWatcherReadJustBeforeARestart(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	tests := []struct {
		name      string
		readAfter bool // the watcher's last read came after the monitor's record was saved
		want      string
	}{
		{name: "read after the record", readAfter: true, want: "execute"},
		{name: "read before the record", readAfter: false, want: "polling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := func(c *Config) { c.MaxBlock = time.Second }
			h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: cfg})
			h.apply(githubfake.OpenPR{Title: "x"})
			h.start()
			act := h.next("ready", "", nil)
			require.Equal(t, "polling", act.Action, "%+v", act)
			rec, ok, err := h.state.Peek(h.ref.String())
			require.NoError(t, err)
			require.True(t, ok)
			saved := time.Now()
			rec.UpdatedAt = saved // as the state directory stamps it

			// A new server on the saved state and what its watcher saw (the fake GitHub as it
			// was, with the review the old watcher read).
			seen := &memSeen{seen: map[prstatus.PRRef]watch.Seen{}}
			h2 := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
				cfg(c)
				c.Watch.Seen = seen
			}})
			require.NoError(t, h2.state.Save(h2.ref.String(), rec))
			h2.apply(githubfake.OpenPR{Title: "x"},
				githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 12, Body: "use backoff"}))
			c, err := ghclient.New(ghclient.Config{RESTURL: h2.fake.URL(), GraphQLURL: h2.fake.URL() + "/graphql",
				Token: ghclient.NewToken(testToken), Version: "test"})
			require.NoError(t, err)
			b, err := c.Fingerprints(context.Background(), []prstatus.PRRef{h2.ref})
			require.NoError(t, err)
			read := saved.Add(-time.Minute)
			if tt.readAfter {
				read = saved.Add(time.Second)
			}
			seen.seen[h2.ref] = watch.Seen{Fingerprint: b.PRs[h2.ref], ReadAt: read}

			act = h2.next("ready", "", nil)
			assert.Equal(t, tt.want, act.Action, "%+v", act)
		})
	}
}

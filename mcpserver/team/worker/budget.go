package worker

import (
	"math"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

// budget is the worker's share of its token's hourly GraphQL points (--budget, the embedded
// watcher's rule): GitHub's own counters, read from every snapshot and search (the points the
// token has spent this hour are its limit less what remains), say what the token spent, whichever
// worker spent it, so every worker sharing the token sees the same total. At the share, every
// GitHub activity is refused before it sends anything until the hour resets
// (monitorwf.OverBudget): a read is tried again later by its monitor, server work when the hour
// resets. GitHub's own holds (Retry-After, secondary limits) are the client's gate's, shared by
// all of this worker's activities.
type budget struct {
	share float64
	now   func() time.Time

	mu   sync.Mutex
	seen prstatus.RateLimit
}

// newBudget returns the budget for share (0 or 1 and above: no budget but GitHub's).
func newBudget(share float64, now func() time.Time) *budget {
	if now == nil {
		now = time.Now
	}
	return &budget{share: share, now: now}
}

// observe records GitHub's counters from an answer.
func (b *budget) observe(rl prstatus.RateLimit) {
	if b == nil || rl.Limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if rl.ResetAt.Before(b.seen.ResetAt) {
		return // an answer from an earlier window, arriving late
	}
	b.seen = rl
}

// admit refuses a GitHub call while the share of this hour's points is spent.
func (b *budget) admit() error {
	if b == nil || b.share <= 0 || b.share >= 1 {
		return nil
	}
	b.mu.Lock()
	rl := b.seen
	b.mu.Unlock()
	if rl.Limit <= 0 || !rl.ResetAt.After(b.now()) {
		return nil
	}
	allowed := int(math.Floor(b.share * float64(rl.Limit)))
	if spent := rl.Limit - rl.Remaining; spent >= allowed {
		return &monitorwf.OverBudget{Spent: spent, Allowed: allowed, Until: rl.ResetAt}
	}
	return nil
}

package worker

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// budget is the worker's share of its token's hourly GraphQL points (--budget, the embedded
// watcher's rule). GitHub's own counters say what the token spent this hour (its limit less what
// remains), whichever worker spent it, so every worker sharing the token sees the same total;
// they are read when the worker starts (GET /rate_limit, which costs nothing) and from every
// answer since. Each call reserves what the last read cost until its own answer is counted, so
// calls admitted together cannot overshoot. At the share, every GitHub activity is refused before
// it sends anything, until the hour resets (monitorwf.OverBudget): a read is tried again later by
// its monitor, server work when the hour resets. GitHub's own holds (Retry-After, secondary
// limits) are the client's gate's, shared by all of this worker's activities.
type budget struct {
	share float64
	now   func() time.Time
	// meter, when set, is told after every answer what it cost and the hour's counters as they
	// now stand (the metrics; the share has no say).
	meter func(cost int, seen prstatus.RateLimit)

	mu       sync.Mutex
	seen     prstatus.RateLimit
	cost     int // what one call cost last (at least 1)
	reserved int // the points of calls admitted and not yet counted
}

// firstCost is what a call is taken to cost until an answer says: a snapshot's points, about 3
// (docs/watcher.md), the most a monitor's call costs.
const firstCost = 3

// newBudget returns the budget for share (0, or 1 and above: no budget but GitHub's).
func newBudget(share float64, now func() time.Time) *budget {
	if now == nil {
		now = time.Now
	}
	return &budget{share: share, now: now, cost: firstCost}
}

// observe records GitHub's counters from an answer.
func (b *budget) observe(rl prstatus.RateLimit) {
	if b == nil || rl.Limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if rl.Cost > 0 {
		b.cost = rl.Cost
	}
	if b.meter != nil {
		defer func() { b.meter(rl.Cost, b.seen) }()
	}
	switch {
	case rl.ResetAt.Before(b.seen.ResetAt):
		return // an answer from an earlier window, arriving late
	case rl.ResetAt.Equal(b.seen.ResetAt) && rl.Remaining > b.seen.Remaining:
		return // an earlier answer of this window, overtaken by a later one
	}
	b.seen = rl
}

// admit reserves one call's points, or refuses the call while the share of this hour's points is
// spent. release returns the reservation once the call's answer was observed (or it failed).
func (b *budget) admit() (release func(), err error) {
	if b == nil || b.share <= 0 || b.share >= 1 {
		return func() {}, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	rl := b.seen
	if rl.Limit > 0 && rl.ResetAt.After(b.now()) {
		allowed := int(math.Floor(b.share * float64(rl.Limit)))
		spent := rl.Limit - rl.Remaining
		if spent+b.reserved+b.cost > allowed {
			return nil, &monitorwf.OverBudget{Spent: spent, Allowed: allowed, Until: rl.ResetAt}
		}
	}
	n := b.cost
	b.reserved += n
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.reserved -= n
			b.mu.Unlock()
		})
	}, nil
}

// seed reads the token's GraphQL counters before the first call (REST's /rate_limit, which GitHub
// does not count). A failure is not one: the first answer will tell.
func (b *budget) seed(ctx context.Context, gh GitHub) error {
	if b == nil || b.share <= 0 || b.share >= 1 {
		return nil
	}
	c, err := gh(ctx)
	if err != nil {
		return err
	}
	limits, _, err := c.REST().RateLimit.Get(ctx)
	if err != nil {
		return err
	}
	if g := limits.GetGraphQL(); g != nil {
		b.observe(prstatus.RateLimit{Limit: g.Limit, Remaining: g.Remaining, ResetAt: g.Reset.Time})
	}
	return nil
}

// observeClient records the counters of a client's last answer when it was GraphQL's (a write's).
func (b *budget) observeClient(c *ghclient.Client) {
	if info, ok := c.LastRateLimit(); ok && info.Resource == "graphql" {
		b.observe(prstatus.RateLimit{Limit: info.Limit, Remaining: info.Remaining, ResetAt: info.ResetAt})
	}
}

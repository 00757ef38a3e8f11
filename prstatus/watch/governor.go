package watch

import (
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// The budget governor. B = Budget × Limit points an hour (Limit: GitHub's, 5,000 for a user
// token, so B = 1,250 by default). Half of B, at most, goes to change detection: with nb =
// ceil(PRs / MaxBatch) batches a cycle, each costing c points (1 at 100 pull requests),
//
//	interval = max(c × 1h / (B/2), Jitter, clamp(nb × that, MinCycle, MaxCycle) / nb)
//	cycle    = nb × interval
//
// (the budget wins over MaxCycle; while a pull request is hot, changed in the last HotWindow or
// waiting on CI, MinCycle/2 stands for MinCycle; while first reads are pending after a restart,
// B/4 stands for B/2). Snapshots never eat into what detection needs until the hour
// ends (reserve = detection's hourly rate × the time left). Within that, a poked pull request's
// snapshot goes at once; those of pull requests whose fingerprint moved (and first reads) go at
// once while the hour's spend is under B/2, then spread evenly over what is left of the hour:
//
//	gap = s × (time left in the hour) / (B − reserve − spent)
//
// Refreshes (hot and safety) share what detection leaves: one snapshot every
//
//	gap = s × 1h / ((B − detection) / 2)
//
// where s is the measured average cost of a snapshot. Nothing is sent while GitHub's gate
// holds, and no refresh in quiet hours or when GitHub's remaining points fall under a tenth of
// the limit.
const (
	detectionShare = 0.5
	refreshShare   = 0.5
	lowRemaining   = 0.1
)

type governor struct {
	budget             float64
	minCycle, maxCycle time.Duration
	jitter             time.Duration
	quiet              func(time.Time) time.Time

	windowStart      time.Time
	points, requests int
	limit, remaining int
	resetAt          time.Time
	known            bool          // limit and remaining come from GitHub
	snapCost         float64       // running average of a snapshot's points
	pending          float64       // points reserved by snapshots under way
	batchCost        float64       // running average of a fingerprint batch's points
	cycle, iv        time.Duration // the current cycle and interval between batches
}

func newGovernor(cfg Config) governor {
	return governor{
		budget: cfg.Budget, minCycle: cfg.MinCycle, maxCycle: cfg.MaxCycle, jitter: cfg.Jitter,
		quiet: cfg.Quiet, limit: DefaultLimit, snapCost: 3, batchCost: 1,
	}
}

// restore continues the saved hour when it is not over.
func (g *governor) restore(sp Spend, now time.Time) {
	if sp.Limit > 0 {
		g.limit, g.remaining, g.resetAt = sp.Limit, sp.Remaining, sp.ResetAt
	}
	if !sp.WindowStart.IsZero() && now.Before(sp.WindowStart.Add(time.Hour)) && !now.Before(sp.WindowStart) {
		g.windowStart, g.points, g.requests = sp.WindowStart, sp.Points, sp.Requests
	}
	g.cycle = sp.Cycle
}

func (g *governor) roll(now time.Time) {
	if g.windowStart.IsZero() || !now.Before(g.windowStart.Add(time.Hour)) {
		g.windowStart, g.points, g.requests = now, 0, 0
	}
}

// charge counts one request and its points.
func (g *governor) charge(now time.Time, points int) {
	g.roll(now)
	g.points += points
	g.requests++
}

// observe takes GitHub's rateLimit from a response. It reports whether the hourly limit differs
// from the one the pace was computed with (DefaultLimit before GitHub said).
func (g *governor) observe(rl prstatus.RateLimit) bool {
	if rl.Limit <= 0 {
		return false
	}
	moved := rl.Limit != g.limit
	g.limit, g.remaining, g.resetAt, g.known = rl.Limit, rl.Remaining, rl.ResetAt, true
	return moved
}

func (g *governor) noteSnapshot(cost int) {
	if cost > 0 {
		g.snapCost = 0.8*g.snapCost + 0.2*float64(cost)
	}
}

func (g *governor) noteBatch(cost int) {
	if cost > 0 {
		g.batchCost = 0.8*g.batchCost + 0.2*float64(cost)
	}
}

// hourBudget is B.
func (g *governor) hourBudget() float64 { return g.budget * float64(g.limit) }

// overBudget reports whether the hour's spend reached B; until is when the hour ends.
func (g *governor) overBudget(now time.Time) (until time.Time, over bool) {
	g.roll(now)
	if float64(g.points) >= g.hourBudget() {
		return g.windowStart.Add(time.Hour), true
	}
	return time.Time{}, false
}

func (g *governor) quietUntil(now time.Time) time.Time {
	if g.quiet == nil {
		return time.Time{}
	}
	if t := g.quiet(now); t.After(now) {
		return t
	}
	return time.Time{}
}

func (g *governor) low() bool {
	return g.known && float64(g.remaining) < lowRemaining*float64(g.limit)
}

// interval is the time between two fingerprint batches for nb batches a cycle. hot says some
// pull request changed lately or waits on CI: then the cycle may go down to MinCycle/2 (the
// budget still bounds it).
//
// catchUp says some pull requests still need their first read (a restart resumed them): then
// detection takes a quarter of B instead of half, and the first reads get the rest sooner.
func (g *governor) interval(now time.Time, nb int, hot, catchUp bool) time.Duration {
	nb = max(nb, 1)
	share := detectionShare
	if catchUp {
		share /= 2
	}
	byBudget := time.Duration(g.batchCost * float64(time.Hour) / (share * g.hourBudget()))
	byBudget = max(byBudget, g.jitter)
	floor := g.minCycle
	if hot {
		floor /= 2
	}
	cycle := min(max(time.Duration(nb)*byBudget, floor), g.maxCycle)
	if !g.quietUntil(now).IsZero() || g.low() {
		cycle = g.maxCycle
	}
	iv := max(cycle/time.Duration(nb), byBudget)
	g.cycle, g.iv = iv*time.Duration(nb), iv
	return iv
}

// detectionPerHour is what change detection spends an hour at the current pace.
func (g *governor) detectionPerHour() float64 {
	if g.iv <= 0 {
		return 0
	}
	return g.batchCost * float64(time.Hour) / float64(g.iv)
}

// reserve is the points detection needs until the hour ends.
func (g *governor) reserve(now time.Time) float64 {
	left := g.windowStart.Add(time.Hour).Sub(now)
	return g.detectionPerHour() * max(left, 0).Hours()
}

// snapshotRoom reports whether one more snapshot fits the hour without eating into detection's
// reserve.
func (g *governor) snapshotRoom(now time.Time) bool {
	g.roll(now)
	return float64(g.points)+g.pending+g.snapCost <= g.hourBudget()-g.reserve(now)
}

// roomAt is when one more snapshot fits: now if it does, else when detection's reserve has
// shrunk enough (it shrinks as the hour passes), at the latest when the hour ends.
func (g *governor) roomAt(now time.Time) time.Time {
	if g.snapshotRoom(now) {
		return now
	}
	end := g.windowStart.Add(time.Hour)
	det := g.detectionPerHour()
	free := g.hourBudget() - float64(g.points) - g.pending - g.snapCost
	if det <= 0 || free <= 0 {
		return end
	}
	left := time.Duration(free / det * float64(time.Hour))
	return latest(end.Add(-left), now.Add(time.Second))
}

// changedGap is how long after this snapshot of a moved pull request the next may go: 0 while
// the hour's spend is under B/2, then what is left of the hour spread evenly.
func (g *governor) changedGap(now time.Time) time.Duration {
	g.roll(now)
	b := g.hourBudget()
	if float64(g.points) < b/2 {
		return 0
	}
	room := b - g.reserve(now) - float64(g.points)
	left := g.windowStart.Add(time.Hour).Sub(now)
	if room <= g.snapCost {
		return max(left, time.Second)
	}
	return time.Duration(g.snapCost * float64(left) / room)
}

// refreshGap is the least time between two refresh snapshots; ok is false when none may go.
func (g *governor) refreshGap(now time.Time) (time.Duration, bool) {
	if !g.quietUntil(now).IsZero() || g.low() {
		return 0, false
	}
	if _, over := g.overBudget(now); over {
		return 0, false
	}
	if !g.snapshotRoom(now) {
		return 0, false
	}
	left := (g.hourBudget() - g.detectionPerHour()) * refreshShare
	if left <= g.snapCost {
		return 0, false
	}
	return time.Duration(g.snapCost * float64(time.Hour) / left), true
}

func (g *governor) stats(now time.Time, prs int) Stats {
	g.roll(now)
	return Stats{
		PRs: prs, Cycle: g.cycle, Budget: g.budget, PointsThisHour: g.points, RequestsThisHour: g.requests,
		WindowStart: g.windowStart, Limit: g.limit, Remaining: g.remaining, ResetAt: g.resetAt,
		QuietUntil: g.quietUntil(now),
	}
}

func (g *governor) spend(now time.Time, prs int) Spend {
	g.roll(now)
	return Spend{
		Budget: g.budget, WindowStart: g.windowStart, Points: g.points, Requests: g.requests,
		Limit: g.limit, Remaining: g.remaining, ResetAt: g.resetAt, Cycle: g.cycle, PRs: prs,
		QuietUntil: g.quietUntil(now), UpdatedAt: now,
	}
}

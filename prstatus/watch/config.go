package watch

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Source is what the watcher reads from GitHub. *ghclient.Client implements it.
type Source interface {
	// Fingerprints is one GraphQL request with aliases for up to MaxBatch pull requests, plain
	// fields only, 1 point. Missing or inaccessible pull requests come back with Missing set,
	// never as an error for the batch.
	Fingerprints(ctx context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error)
	// Snapshot is the full one-query read of a pull request.
	Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error)
}

// Looker is a Source that reads, per pull request of a batch, the connections the watcher asks
// for (ghclient.Client.FingerprintsOf): the check counts only while checks may still move, the
// review threads' resolved state of every pull request that has threads, as many as keep the batch
// at 1 point. A Source without it is read with Fingerprints (check counts for all, no thread
// states: a resolve is then seen by the follow-up or safety refresh only).
type Looker interface {
	FingerprintsOf(ctx context.Context, reqs []ghclient.FingerprintRequest) (ghclient.FingerprintBatch, error)
}

// MergeabilityAsker is a Source that can ask GitHub to compute a pull request's mergeability
// (ghclient.Client.AskMergeability: a REST GET of the pull request).
type MergeabilityAsker interface {
	AskMergeability(ctx context.Context, ref prstatus.PRRef) (prstatus.Mergeable, error)
}

// Gated is a Source whose requests pass a ghclient.Gate (*ghclient.Client does): the watcher sends
// nothing while it holds, and sleeps until it opens instead of queueing requests behind it.
type Gated interface {
	Gate() *ghclient.Gate
}

// Connect makes the Source on first use (the token is resolved lazily). An error is published to
// every watched pull request and Connect is tried again later.
type Connect func(ctx context.Context) (Source, error)

// Config configures a Watcher. Only Connect is required.
type Config struct {
	Connect Connect
	// Budget is the share of the token's hourly GraphQL points the watcher may spend (default
	// 0.25). The rest is left to the agent's own use of the token.
	Budget float64
	// MaxBatch is the most pull requests one fingerprint request reads (default and maximum 100).
	MaxBatch int
	// MaxInFlight caps the watcher's concurrent requests (default 2).
	MaxInFlight int
	// MinCycle and MaxCycle bound the time between two looks at the same pull request (defaults
	// 8 s and 5 min). The governor picks the cycle in between (see the package doc).
	MinCycle, MaxCycle time.Duration
	// SafetyRefresh is how often, at most, each pull request gets a full snapshot although its
	// fingerprint did not change (default 2 h; longer when the budget requires).
	SafetyRefresh time.Duration
	// HotRefresh is when, after a pull request's last change, it gets one more full snapshot
	// anyway, to catch what no fingerprint field shows (a thread resolved right after a reply)
	// (default 2 min). HotWindow is how long after a change a pull request is in every
	// fingerprint batch (default 10 min).
	HotRefresh, HotWindow time.Duration
	// Jitter spreads requests: each wake-up moves by a random amount in [0, Jitter) (default 1 s).
	Jitter time.Duration
	// MergeableAsk is how long mergeability may read UNKNOWN (GitHub has not computed it) before
	// the watcher asks GitHub, once, to compute it (default 10 s: two or three looks). Meanwhile,
	// and for at most HotWindow, the pull request is in every batch.
	MergeableAsk time.Duration
	// ChecksGrace is how long after a push a head with no check, on a base branch that requires
	// none, is taken for one whose checks have not registered yet (prstatus.ChecksGraceEnd; default
	// prstatus.DefaultChecksGrace, negative: none). The watcher publishes the snapshot again when
	// it ends, so that a waiting call derives anew: give Derive the same grace.
	ChecksGrace time.Duration
	// Quiet, when set, says whether now is in quiet hours: a non-zero time is when they end. In
	// quiet hours the cycle is MaxCycle and there are no safety refreshes.
	Quiet func(now time.Time) time.Time
	// Spend persists what the watcher spent (nil: not persisted).
	Spend SpendStore
	// Seen persists what the watcher has seen of each pull request (nil: not persisted; every
	// pull request gets a first read after a restart). See SeenStore.
	Seen SeenStore
	// Now is the clock (default time.Now).
	Now func() time.Time
	// After returns a channel that receives after d (default time.After); tests use a fake clock.
	After func(d time.Duration) <-chan time.Time
	// Rand returns a random number in [0, 1) for the jitter (default math/rand/v2).
	Rand func() float64
	// Logger receives debug lines and warnings (nil: discarded).
	Logger *slog.Logger
}

// Defaults.
const (
	DefaultBudget        = 0.25
	DefaultMaxInFlight   = 2
	DefaultMinCycle      = 8 * time.Second
	DefaultMaxCycle      = 5 * time.Minute
	DefaultSafetyRefresh = 2 * time.Hour
	DefaultHotRefresh    = 2 * time.Minute
	DefaultHotWindow     = 10 * time.Minute
	DefaultJitter        = time.Second
	DefaultMergeableAsk  = 10 * time.Second
	// DefaultLimit is the hourly GraphQL points assumed before GitHub said (a user token's limit).
	DefaultLimit = 5000
)

// ErrNoConnect is New's error for a Config without Connect.
var ErrNoConnect = errors.New("watch: Config.Connect is required")

func (c Config) withDefaults() (Config, error) {
	if c.Connect == nil {
		return c, ErrNoConnect
	}
	if c.Budget <= 0 || c.Budget > 1 {
		c.Budget = DefaultBudget
	}
	if c.MaxBatch <= 0 || c.MaxBatch > ghclient.MaxFingerprintBatch {
		c.MaxBatch = ghclient.MaxFingerprintBatch
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.MinCycle <= 0 {
		c.MinCycle = DefaultMinCycle
	}
	if c.MaxCycle <= 0 {
		c.MaxCycle = DefaultMaxCycle
	}
	c.MaxCycle = max(c.MaxCycle, c.MinCycle)
	if c.SafetyRefresh <= 0 {
		c.SafetyRefresh = DefaultSafetyRefresh
	}
	if c.HotRefresh <= 0 {
		c.HotRefresh = DefaultHotRefresh
	}
	if c.HotWindow <= 0 {
		c.HotWindow = DefaultHotWindow
	}
	if c.MergeableAsk <= 0 {
		c.MergeableAsk = DefaultMergeableAsk
	}
	if c.ChecksGrace == 0 {
		c.ChecksGrace = prstatus.DefaultChecksGrace
	}
	if c.Jitter < 0 {
		c.Jitter = 0
	} else if c.Jitter == 0 {
		c.Jitter = DefaultJitter
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
	if c.Rand == nil {
		c.Rand = rand.Float64
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

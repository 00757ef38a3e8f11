package watch

import "time"

// Spend is what one watcher (one token on one GitHub API) has spent and how it paces itself. The
// watcher saves it every few cycles so a restarted server keeps its pace and its count of the
// hour, and `prmonitor status` reads it to show the budget in use without a running server.
// mcpserver/store keeps it in spend.json (store.Spend is this type).
type Spend struct {
	// Budget is the share of the token's hourly points the watcher may spend (0.25 = 25 %).
	Budget float64 `json:"budget"`
	// WindowStart is when the current hour of counting began; Points and Requests count from it.
	WindowStart time.Time `json:"window_start"`
	Points      int       `json:"points"`
	Requests    int       `json:"requests"`
	// Limit, Remaining and ResetAt are GitHub's GraphQL rate limit as last read.
	Limit     int       `json:"limit"`
	Remaining int       `json:"remaining"`
	ResetAt   time.Time `json:"reset_at"`
	// Cycle is the current interval between two looks at the same pull request.
	Cycle time.Duration `json:"cycle_ns"`
	// PRs is how many pull requests the watcher watches.
	PRs int `json:"prs"`
	// QuietUntil is the end of the quiet hours the watcher is in (zero: not quiet).
	QuietUntil time.Time `json:"quiet_until,omitzero"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// SpendStore keeps a watcher's Spend across restarts (*store.SpendStore in mcpserver/store).
type SpendStore interface {
	// LoadSpend returns the saved spend; ok is false when none was saved.
	LoadSpend() (Spend, bool, error)
	SaveSpend(Spend) error
}

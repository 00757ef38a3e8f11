package monitorwf

import (
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Params start a monitor's workflow. Everything that shapes its decisions is here, in its
// history, never read from the worker's configuration: a replay decides as the first run did.
type Params struct {
	Ref     prstatus.PRRef          `json:"ref"`
	Machine statemachine.Config     `json:"machine"`
	Policy  prstatus.ReviewerPolicy `json:"policy"`
	// Owner is the key of the user the monitor belongs to (Owner.Key: "id:N", N their GitHub user
	// id): the one who started it, or the pull request's author when a webhook delivery did. Only
	// the owner sees and drives it through the HTTP front end. A lower-case login for monitors
	// started before owners had ids (until adopted: SignalAdopt); empty for monitors started
	// before owners existed.
	Owner string `json:"owner,omitempty"`
	// OwnerLogin is the owner's login when the monitor started or was adopted: a display name,
	// and the login the pull request's author must have at the first read (foreign).
	OwnerLogin string `json:"owner_login,omitempty"`

	// Reconcile is the durable timer's period: the pull request is read at least this often
	// whatever webhooks say (the embedded watcher's safety refresh), jittered per pull request.
	Reconcile time.Duration `json:"reconcile"`
	// HotRefresh: a change is read once more this long after its read (GitHub computes some
	// things, such as mergeability, a moment after the event).
	HotRefresh time.Duration `json:"hot_refresh"`
	// Debounce: changes signalled within this window of the first make one read.
	Debounce time.Duration `json:"debounce"`
	// MaxWait bounds how long a next_step Update waits for something for the agent.
	MaxWait time.Duration `json:"max_wait"`
	// MaxHistoryEvents: past this many events (or when Temporal suggests it) the workflow
	// continues as new.
	MaxHistoryEvents int `json:"max_history_events"`
	// DeliveryWindow is how long the webhook deliveries the monitor took are remembered, so that
	// a replay of one is dropped.
	DeliveryWindow time.Duration `json:"delivery_window,omitempty"`

	// Carry is what a continued run starts from; nil for a new monitor.
	Carry *Carry `json:"carry,omitempty"`
}

// Carry is all a run hands to its continuation: the machine's position and the timers. Facts
// are never carried; the next read derives them again, as after a restart of the embedded server.
type Carry struct {
	Position statemachine.Position `json:"position"`
	// Owed is when a change arrived that no read has seen yet (zero: none).
	Owed        time.Time `json:"owed,omitzero"`
	ReconcileAt time.Time `json:"reconcile_at,omitzero"`
	HotAt       time.Time `json:"hot_at,omitzero"`
	// Runs counts the continuations so far (status shows it).
	Runs int `json:"runs"`
	// Deliveries are the webhook deliveries taken within the window.
	Deliveries []Delivery `json:"deliveries,omitempty"`
	// AuthorSeen: a read found the pull request's author to be the id-keyed owner (foreign).
	AuthorSeen bool `json:"author_seen,omitempty"`
}

// Defaults used when a Params field is zero.
const (
	DefaultDebounce         = 3 * time.Second
	DefaultMaxWait          = 90 * time.Second
	DefaultMaxHistoryEvents = 5000
)

// NewParams are a new monitor's parameters with the defaults.
func NewParams(ref prstatus.PRRef, cfg statemachine.Config, policy prstatus.ReviewerPolicy) Params {
	return Params{Ref: ref, Machine: cfg, Policy: policy}.withDefaults()
}

func (p Params) withDefaults() Params {
	if p.Reconcile <= 0 {
		p.Reconcile = watch.DefaultSafetyRefresh
	}
	if p.HotRefresh <= 0 {
		p.HotRefresh = watch.DefaultHotRefresh
	}
	if p.Debounce <= 0 {
		p.Debounce = DefaultDebounce
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultMaxWait
	}
	if p.DeliveryWindow <= 0 {
		p.DeliveryWindow = DefaultDeliveryWindow
	}
	if p.MaxHistoryEvents <= 0 {
		p.MaxHistoryEvents = DefaultMaxHistoryEvents
	}
	return p
}

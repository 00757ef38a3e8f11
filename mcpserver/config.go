package mcpserver

import (
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/mcpserver/quiet"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Config is everything the server needs; zero durations take defaults.
type Config struct {
	Version string
	// Connect reaches GitHub (lazily: a missing token is reported to the call that needs GitHub).
	Connect Connect
	// WebHost, when set, is the configured GitHub's web host (github.com): a pull request URL on
	// any other host is refused before any request. Empty when the API root does not say it (a
	// proxy, a local fake): then GitHub's answer decides.
	WebHost string
	// State persists monitors; nil keeps them in memory only.
	State   monitor.Persister
	Machine statemachine.Config
	// MaxBlock, when set, is the longest a next_step call outside a task blocks before returning
	// polling, whatever the host; zero picks the bound that fits the client's host (contract.HostBounds,
	// contract.DefaultCallBound), so host tool timeouts never kill a call; the bound for a call is
	// callDeadline's. A task is not bounded by it.
	MaxBlock time.Duration
	// HostBounds and DefaultBound are the table MaxBlock's zero value picks from (nil and zero:
	// contract.HostBounds() and contract.DefaultCallBound).
	HostBounds   []contract.HostBound
	DefaultBound time.Duration
	maxBlockSet  bool // MaxBlock was set (not defaulted): it wins over the host's bound
	// ProgressEvery is how often a blocked call sends a progress notification (default 5 s: hosts
	// that keep a call alive on progress hear from it well within 15 s).
	ProgressEvery time.Duration
	// RoundTrips is how many elicitation/sampling round trips one call may use (clients and the
	// legacy bridge allow 10).
	RoundTrips int
	// Quiet are the user's quiet hours: while they last no question reaches the user (see
	// quiet.go); the zero value is never quiet. Quiet.Until is the watcher's Config.Quiet.
	Quiet quiet.Hours
	// SealKey seals the multi-round-trip request state; nil makes a random key per process.
	SealKey []byte
	// Workers is how many tool calls can run at once (each blocked next_step holds one). All but
	// a reserve may block at once; past that a next_step returns polling at once.
	Workers int
	// Watch configures the watcher that reads GitHub for every monitor (Connect, Now and Logger
	// are the server's). Budget is --budget; Spend keeps its spend in the state directory.
	Watch  watch.Config
	Now    func() time.Time
	Logger *slog.Logger
	// Dispatch offers the pr_dispatch tool (prmonitor serve --dispatch); without it the server
	// lists only the monitor's tools.
	Dispatch bool
	// Push is to which clients the server pushes a Claude Code channel event when an action
	// waits on the agent and no call waits (push.go): PushAuto (the zero value) to Claude Code
	// alone. PushEvery is how often it looks (default 1 s), PushGrace how long an action waits for
	// a call to take it before it is pushed (default 5 s).
	Push                 PushMode
	PushEvery, PushGrace time.Duration
	// Notify, when set, shows the user a desktop notification for a question that waits for them
	// (notify.go): at once when the host cannot show it, after NotifyAfter (default
	// DefaultNotifyAfter) when the host shows it and nobody answers.
	Notify      Notifier
	NotifyAfter time.Duration
	// ReviewBots are the bots whose review feedback is acted on, besides the people who can review
	// (OWNER, MEMBER, COLLABORATOR). nil means prstatus.DefaultReviewBots; empty, no bot.
	ReviewBots []string
	// ChecksGrace is how long after a push a head with no check, on a base branch that requires
	// none, waits for checks to register before it counts as green: the facts the server derives
	// and the watcher's republishing when it ends (Watch.ChecksGrace) both take it. Zero is
	// prstatus.DefaultChecksGrace; negative, none.
	ChecksGrace time.Duration
}

func (c *Config) defaults() error {
	if c.Connect == nil {
		return errors.New("mcpserver: Config.Connect is required")
	}
	if c.State == nil {
		c.State = monitor.NewMemoryState()
	}
	if c.Machine == (statemachine.Config{}) {
		c.Machine = statemachine.DefaultConfig()
	}
	if c.HostBounds == nil {
		c.HostBounds = contract.HostBounds()
	}
	if c.DefaultBound <= 0 {
		c.DefaultBound = contract.DefaultCallBound
	}
	// A MaxBlock left zero reads as the default bound to code that takes it as a call's bound;
	// callBound goes by the host's unless it was set.
	c.maxBlockSet = c.MaxBlock > 0
	if !c.maxBlockSet {
		c.MaxBlock = c.DefaultBound
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 5 * time.Second
	}
	if c.PushEvery <= 0 {
		c.PushEvery = time.Second
	}
	if c.PushGrace <= 0 {
		c.PushGrace = 5 * time.Second
	}
	if c.NotifyAfter <= 0 {
		c.NotifyAfter = DefaultNotifyAfter
	}
	if c.RoundTrips <= 0 {
		c.RoundTrips = 8
	}
	if c.Workers <= 0 {
		c.Workers = 64
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.ChecksGrace == 0 {
		c.ChecksGrace = prstatus.DefaultChecksGrace
	}
	c.Watch.ChecksGrace = c.ChecksGrace // one grace: the watcher publishes again when the facts' grace ends
	return nil
}

// reviewers is whose review feedback the server acts on: people who can review and the
// configured review bots (prstatus.DefaultReviewBots when none are configured).
func (c *Config) reviewers() prstatus.ReviewerPolicy {
	if c.ReviewBots == nil {
		return prstatus.DefaultReviewerPolicy()
	}
	return prstatus.ReviewerPolicy{Bots: slices.Clone(c.ReviewBots)}
}

// derive is prstatus.DeriveWith under the server's reviewer policy and checks grace: every fact
// the server acts on comes through here.
func (s *Server) derive(snap *prstatus.Snapshot, now time.Time) prstatus.Facts {
	return prstatus.DeriveWith(snap, now, prstatus.Options{Reviewers: s.cfg.reviewers(), ChecksGrace: s.cfg.ChecksGrace})
}

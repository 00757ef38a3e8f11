package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// host is the server as its drivers see it (the driver's Host).
type host struct{ s *Server }

func (h host) Now() time.Time                     { return h.s.cfg.Now() }
func (h host) RoundTrips() int                    { return h.s.cfg.RoundTrips }
func (h host) Machine() statemachine.Config       { return h.s.cfg.Machine }
func (h host) ProgressEvery() time.Duration       { return h.s.cfg.ProgressEvery }
func (h host) Reviewers() prstatus.ReviewerPolicy { return h.s.cfg.reviewers() }

func (h host) GitHub(ctx context.Context) (effects.GitHub, error) { return h.s.github(ctx) }
func (h host) Watcher() (*watch.Watcher, error)                   { return h.s.ensureWatcher() }
func (h host) Unwatch(m *monitor.Monitor)                         { h.s.unwatch(m) }
func (h host) HeldUntil() time.Time                               { return h.s.heldUntil() }
func (h host) Derive(snap *prstatus.Snapshot, now time.Time) prstatus.Facts {
	return h.s.derive(snap, now)
}
func (h host) SawPoll(ref prstatus.PRRef, f *prstatus.Facts, now time.Time) {
	h.s.failures().sawPoll(ref, f, now)
}

// SawLogs reads the logs through the server's GitHub client, which the work that fetched them
// connected.
func (h host) SawLogs(ctx context.Context, m *monitor.Monitor, in *statemachine.Input, now time.Time) {
	if gh, err := h.s.github(ctx); err == nil {
		h.s.failures().sawLogs(ctx, gh, m, in, now)
	}
}

func (h host) Asked(m *monitor.Monitor, q *elicitation.Question, hostShows bool) {
	h.s.notices.asked(m, q, hostShows)
}
func (h host) Settled(m *monitor.Monitor) { h.s.notices.settled(m) }

func (h host) QuietUntil() time.Time             { return h.s.quietUntil() }
func (h host) LocalTime(t time.Time) string      { return h.s.localTime(t) }
func (h host) Stamp(t time.Time) string          { return h.s.stamp(t) }
func (h host) Summary(m *monitor.Monitor) string { return h.s.summary(m) }
func (h host) AnnotateSnooze(out *contract.ActionOutput, act statemachine.Action) {
	h.s.annotateSnooze(out, act)
}

func (h host) Seal(st driver.RequestState) (string, error) { return h.s.seal.Seal(st) }
func (h host) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return h.s.mcp.RequestElicitation(ctx, req)
}
func (h host) Sample(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	//lint:ignore SA1019 sampling, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)
	return h.s.mcp.RequestSampling(ctx, req)
}

// LegacyTaskID is the id of the task the request of ctx created (tasks.go).
func (h host) LegacyTaskID(ctx context.Context) string {
	if slot := slotFrom(ctx); slot != nil {
		return slot.taskID()
	}
	return ""
}

// TaskAsks marks task id as input_required and tells the client, until done (tasks_asking.go).
func (h host) TaskAsks(ctx context.Context, id string) (done func()) {
	unmark := h.s.tasks.asking(id)
	h.s.notifyTaskStatus(ctx, id)
	return func() {
		unmark()
		if ctx.Err() == nil {
			h.s.notifyTaskStatus(ctx, id)
		}
	}
}

func (h host) AcquireWait() (func(), bool) { return h.s.waiting.acquire() }
func (h host) WaitSlots() int              { return h.s.waiting.size() }

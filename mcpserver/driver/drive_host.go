package driver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Host is what a driver uses of the server it runs in: its configuration and clock, GitHub and
// the watcher, the failure memory, the notices to a user who is away, quiet hours, the client's
// elicitation and sampling, the tasks a call runs in, and the bound on waiting calls.
type Host interface {
	Now() time.Time
	// RoundTrips is how many elicitation/sampling round trips one call may use.
	RoundTrips() int
	Machine() statemachine.Config
	// ProgressEvery is how long one wait for the watcher lasts before the driver looks again.
	ProgressEvery() time.Duration
	Reviewers() prstatus.ReviewerPolicy

	// GitHub connects on first use.
	GitHub(ctx context.Context) (effects.GitHub, error)
	// Watcher starts the server's watcher on first use.
	Watcher() (*watch.Watcher, error)
	// Unwatch stops watching m's pull request.
	Unwatch(m *monitor.Monitor)
	// HeldUntil is when the token's rate-limit hold ends (zero: none).
	HeldUntil() time.Time
	// Derive turns a snapshot into facts, with the server's rules.
	Derive(snap *prstatus.Snapshot, now time.Time) prstatus.Facts
	// SawPoll and SawLogs feed the failure memory: a poll's facts, a fetch_ci_logs outcome.
	SawPoll(ref prstatus.PRRef, f *prstatus.Facts, now time.Time)
	SawLogs(ctx context.Context, m *monitor.Monitor, in *statemachine.Input, now time.Time)

	// Asked: question q of m is out (hostShows: in the host's form); Settled: it was answered or
	// the call ended. A user who is away may be notified meanwhile.
	Asked(m *monitor.Monitor, q *elicitation.Question, hostShows bool)
	Settled(m *monitor.Monitor)

	// QuietUntil is when the user's quiet hours end (zero: not quiet); LocalTime and Stamp say a
	// time in the user's zone, in words and in RFC 3339.
	QuietUntil() time.Time
	LocalTime(t time.Time) string
	Stamp(t time.Time) string
	// Summary is the monitor's one line; AnnotateSnooze says a snoozed question's wait in out.
	Summary(m *monitor.Monitor) string
	AnnotateSnooze(out *contract.ActionOutput, act statemachine.Action)

	// Seal seals a request state for a client that answers by calling again.
	Seal(st RequestState) (string, error)
	// Elicit and Sample put a request to the client inside the call (before the 2026-07-28 era).
	Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	Sample(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	// LegacyTaskID is the id of the 2025-11-25 task the call of ctx runs in; TaskAsks marks it as
	// waiting for the user until done.
	LegacyTaskID(ctx context.Context) string
	TaskAsks(ctx context.Context, id string) (done func())

	// AcquireWait takes one of the slots of calls that may block; WaitSlots is how many there are.
	AcquireWait() (release func(), ok bool)
	WaitSlots() int
}

// Progress is how a driver speaks to the client while it waits (nil-safe: a client may ask for
// no progress).
type Progress interface {
	// Say sends a message at once; Remark adds a standing note to every later one ("" clears it).
	Say(msg string)
	Remark(note string)
}

// Call is the tool call a driver runs in.
type Call struct {
	// Deadline is when the call must answer.
	Deadline time.Time
	Progress Progress
	// HoldsWorker: the call holds a worker of the transport while it waits (a plain call).
	HoldsWorker bool
	// Legacy: the call runs as a 2025-11-25 MCP task.
	Legacy bool
	// Responses are the client's answers to the input requests of a retried call.
	Responses mcp.InputResponses
}

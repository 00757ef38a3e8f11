package monitorwf

import (
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/prmonitor/prmonitor/prstatus"
)

// The names a client uses to reach a monitor's workflow.
const (
	// WorkflowName is the workflow type.
	WorkflowName = "prmonitor.Monitor"
	// SignalChanged says something changed on the pull request (a webhook delivery, a start).
	SignalChanged = "changed"
	// SignalStop stops the monitor; the workflow returns and its history stays.
	SignalStop = "stop"
	// SignalAdopt records the owner's GitHub user id on a monitor keyed by the owner's login
	// (Adopt).
	SignalAdopt = "adopt-owner"
	// UpdateNextStep is the agent's pr_monitor_next_step.
	UpdateNextStep = "next_step"
	// QueryStatus is pr_monitor_status for one monitor.
	QueryStatus = "status"
	// QueryPending is the action the monitor waits on (its task or question whole, or polling).
	QueryPending = "pending"
	// DefaultTaskQueue is the task queue of workflows and activities unless --task-queue says.
	DefaultTaskQueue = "prmonitor"
)

// Activity names (registered by Activities.Register).
const (
	ActivityReadSnapshot = "prmonitor.ReadSnapshot"
	ActivityPerform      = "prmonitor.Perform"
)

// Search attributes on each monitor's workflow (Keyword; register them on the namespace:
// docs/deploy.md). The owner lets a front end list and check a user's monitors; waiting-on lets it
// find the monitors that wait on someone with one visibility query.
const (
	SearchAttributeOwner     = "PrmonitorOwner"
	SearchAttributeWaitingOn = "PrmonitorWaitingOn"
)

// SearchAttributes are the names above, for an operator's or a test's registration.
var SearchAttributes = []string{SearchAttributeOwner, SearchAttributeWaitingOn}

var (
	ownerKey     = temporal.NewSearchAttributeKeyKeyword(SearchAttributeOwner)
	waitingOnKey = temporal.NewSearchAttributeKeyKeyword(SearchAttributeWaitingOn)
)

// WorkflowID is the monitor's workflow id: owner/repo#N, lower-cased, as the embedded server's
// monitor id.
func WorkflowID(ref prstatus.PRRef) string { return strings.ToLower(ref.String()) }

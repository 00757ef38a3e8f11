package statemachine

import (
	"fmt"
)

// A position saved by version 1 names one of these nodes: a question node and a task node per
// flow, whose step lived in the flow's context. They are listed here, and only here, so a user
// who upgrades with a monitor mid-flow keeps their place.
var v1Nodes = map[Node]Flow{
	"idle": FlowNone, "polling": FlowNone, "stopped": FlowNone, "monitor_task": FlowNone,
	"refine_ask": FlowRefine, "refine_task": FlowRefine,
	"comments_ask": FlowComments, "comments_task": FlowComments,
	"ci_ask": FlowCI, "ci_task": FlowCI, "ci_wait": FlowCI,
	"conflict_ask": FlowConflict, "conflict_task": FlowConflict,
	"ready_ask": FlowReady, "ready_task": FlowReady,
	"stale_ask": FlowStale, "stale_task": FlowStale,
}

// migrate brings a saved position up to PositionVersion. The node of a version-1 position is the
// one its context says it is at: the open question's node, the task's or the server action's.
func migrate(p Position) (Position, error) {
	switch p.Version {
	case PositionVersion:
		return p, nil
	case 1:
	default:
		return p, fmt.Errorf("%w: version %d; this build reads %d to %d", ErrCorruptPosition, p.Version, OldestPositionVersion, PositionVersion)
	}
	flow, ok := v1Nodes[p.Node]
	if !ok {
		return p, fmt.Errorf("%w: unknown version 1 node %q", ErrCorruptPosition, p.Node)
	}
	followUp := p.Comments != nil && p.Comments.Mode == ModeFollowUp
	var n Node
	switch {
	case p.Node == "ci_wait":
		n = NodeCIRerunDeferred
	case flow == FlowNone && p.Server == nil:
		n = p.Node // idle, polling, stopped keep their names
	case p.Question != nil:
		n = questionNode(flow, p.Question.ID)
	case p.Server != nil:
		n = serverNode(flow, p.Server.Kind)
	case p.Task != nil:
		n = taskNode(flow, p.Task.Name, followUp)
	}
	if n == "" {
		return p, fmt.Errorf("%w: version 1 node %q holds nothing this build places", ErrCorruptPosition, p.Node)
	}
	p.Version, p.Node = PositionVersion, n
	// The actions a task keeps to hand out again carry the node they were handed out at.
	if p.Task != nil {
		p.Task.Emitted.Node = n
	}
	var inRecovery func(*RecoveryState)
	inFreeform := func(ff *FreeformState) {
		if ff != nil {
			inRecovery(ff.Recovery)
		}
	}
	inRecovery = func(rec *RecoveryState) {
		if rec != nil {
			rec.Task.Emitted.Node = taskNode(flow, rec.Task.Name, followUp)
			inFreeform(rec.Freeform)
		}
	}
	inRecovery(p.Recovery)
	inFreeform(p.Freeform)
	return p, nil
}

// ReadsPositionVersion reports whether this build can restore a position saved with version v.
func ReadsPositionVersion(v int) bool { return v >= OldestPositionVersion && v <= PositionVersion }

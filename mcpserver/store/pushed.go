package store

import "time"

// Pushed is what the agent was last told of a monitor's open action, by a call or by a push (a
// Claude Code channel event, mcpserver/push.go): the action's key, how many pushes the monitor
// has sent, and when the last went. A restarted server reads it so that it never pushes the same
// action twice.
type Pushed struct {
	Key string    `json:"key"`
	Seq int       `json:"seq"`
	At  time.Time `json:"at,omitzero"`
}

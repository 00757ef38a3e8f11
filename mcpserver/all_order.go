package mcpserver

import (
	"cmp"
	"slices"

	"github.com/prmonitor/prmonitor/mcpserver/monitor"
)

// nextTurn is the monitor whose action has waited longest on the agent, nil when none waits. An
// action already handed out (and not answered since) counts only with handed, and then after
// every one not handed out yet: a ready with monitor_id=all asks for the next thing to do, and no
// pull request starves another. In quiet hours questions wait; tasks go on.
func nextTurn(ts []monitor.Turn, quiet, handed bool) *monitor.Monitor {
	var cs []monitor.Turn
	for _, t := range ts {
		if !t.Waiting || (quiet && t.Asks) || (t.Handed && !handed) {
			continue
		}
		cs = append(cs, t)
	}
	if len(cs) == 0 {
		return nil
	}
	rank := func(t monitor.Turn) int {
		if t.Handed {
			return 1
		}
		return 0
	}
	slices.SortFunc(cs, func(a, b monitor.Turn) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		if a.Handed { // handed out before: round robin, least recently served first
			return cmp.Or(a.ServedAt.Compare(b.ServedAt), cmp.Compare(a.Monitor.ID, b.Monitor.ID))
		}
		// The lowest pull request of a stack first: the ones above it merge into it.
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), a.Since.Compare(b.Since), cmp.Compare(a.Monitor.ID, b.Monitor.ID))
	})
	return cs[0].Monitor
}

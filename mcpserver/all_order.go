package mcpserver

import (
	"cmp"
	"slices"
)

// nextTurn is the monitor whose action has waited longest on the agent, nil when none waits. An
// action already handed out (and not answered since) counts only with handed, and then after
// every one not handed out yet: a ready with monitor_id=all asks for the next thing to do, and no
// pull request starves another. In quiet hours questions wait; tasks go on.
func nextTurn(ts []turn, quiet, handed bool) *monitor {
	var cs []turn
	for _, t := range ts {
		if !t.waiting || (quiet && t.asks) || (t.handed && !handed) {
			continue
		}
		cs = append(cs, t)
	}
	if len(cs) == 0 {
		return nil
	}
	rank := func(t turn) int {
		if t.handed {
			return 1
		}
		return 0
	}
	slices.SortFunc(cs, func(a, b turn) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		if a.handed { // handed out before: round robin, least recently served first
			return cmp.Or(a.servedAt.Compare(b.servedAt), cmp.Compare(a.m.id, b.m.id))
		}
		// The lowest pull request of a stack first: the ones above it merge into it.
		return cmp.Or(cmp.Compare(a.depth, b.depth), a.since.Compare(b.since), cmp.Compare(a.m.id, b.m.id))
	})
	return cs[0].m
}

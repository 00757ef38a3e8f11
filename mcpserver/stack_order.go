package mcpserver

import (
	"cmp"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Stacks of pull requests (docs/watcher.md#stacked-pull-requests): a monitor's pull request stacked
// on another open one (prstatus.Facts.StackedOn). monitor_id=all hands out the lowest pull request
// of a stack first, and start_all and status list each stack bottom up.

// stackDepths is how far up a stack each monitor's pull request is, as its last poll saw it: 0
// for one stacked on nothing, 1 for one on a pull request no monitor watches or on a 0, and so on.
// A cycle (which GitHub does not allow, but a stale poll might show) stops at the monitors seen.
func stackDepths(ms []*monitor.Monitor) map[*monitor.Monitor]int {
	type key struct {
		repo string
		n    int
	}
	byNumber := map[key]*monitor.Monitor{}
	lower := map[*monitor.Monitor]int{}
	for _, m := range ms {
		byNumber[key{m.Ref.Owner + "/" + m.Ref.Repo, m.Ref.Number}] = m
		if f, _ := m.LastFacts(); f != nil && f.StackedOn != nil {
			lower[m] = f.StackedOn.Number
		}
	}
	depth := make(map[*monitor.Monitor]int, len(ms))
	for _, m := range ms {
		d, cur, seen := 0, m, map[*monitor.Monitor]bool{m: true}
		for {
			n, ok := lower[cur]
			if !ok {
				break
			}
			d++
			next := byNumber[key{cur.Ref.Owner + "/" + cur.Ref.Repo, n}]
			if next == nil || seen[next] {
				break
			}
			seen[next], cur = true, next
		}
		depth[m] = d
	}
	return depth
}

// stackRoot is the bottom monitor of m's stack among ms (m itself when it is stacked on none
// watched).
func stackRoot(m *monitor.Monitor, ms []*monitor.Monitor) *monitor.Monitor {
	byNumber := map[string]*monitor.Monitor{}
	for _, o := range ms {
		byNumber[o.Ref.String()] = o
	}
	cur, seen := m, map[*monitor.Monitor]bool{m: true}
	for {
		f, _ := cur.LastFacts()
		if f == nil || f.StackedOn == nil {
			return cur
		}
		r := cur.Ref
		r.Number = f.StackedOn.Number
		next := byNumber[r.String()]
		if next == nil || seen[next] {
			return cur
		}
		seen[next], cur = true, next
	}
}

// stackListed orders status lines by monitor id, except that a stack's lines go together, bottom
// up, where its bottom's id puts them.
func stackListed(items []contract.MonitorStatus, live []*monitor.Monitor) []contract.MonitorStatus {
	depth := stackDepths(live)
	root, level := map[string]string{}, map[string]int{}
	for _, m := range live {
		root[m.ID], level[m.ID] = stackRoot(m, live).ID, depth[m]
	}
	key := func(it contract.MonitorStatus) (string, int) {
		if r, ok := root[it.MonitorID]; ok {
			return r, level[it.MonitorID]
		}
		return it.MonitorID, 0
	}
	slices.SortStableFunc(items, func(a, b contract.MonitorStatus) int {
		ra, da := key(a)
		rb, db := key(b)
		return cmp.Or(strings.Compare(ra, rb), cmp.Compare(da, db), strings.Compare(a.MonitorID, b.MonitorID))
	})
	return items
}

// foundInStackOrder orders the pull requests pr_monitor_start_all found so that each stack (one's
// base branch is another's head, in the same repository) comes together, bottom up, where its
// bottom was found; the others keep the search's order.
func foundInStackOrder(prs []ghclient.FoundPR) []ghclient.FoundPR {
	head := map[string]int{} // "owner/repo:branch" → index
	for i, p := range prs {
		if !p.IsCrossRepository && p.HeadRef != "" {
			head[p.Ref.Owner+"/"+p.Ref.Repo+":"+p.HeadRef] = i
		}
	}
	lower := func(i int) (int, bool) {
		p := prs[i]
		j, ok := head[p.Ref.Owner+"/"+p.Ref.Repo+":"+p.BaseRef]
		return j, ok && j != i
	}
	root, depth := make([]int, len(prs)), make([]int, len(prs))
	for i := range prs {
		cur, seen := i, map[int]bool{i: true}
		for {
			j, ok := lower(cur)
			if !ok || seen[j] {
				break
			}
			seen[j], cur = true, j
			depth[i]++
		}
		root[i] = cur
	}
	idx := make([]int, len(prs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Or(cmp.Compare(root[a], root[b]), cmp.Compare(depth[a], depth[b])) })
	out := make([]ghclient.FoundPR, len(prs))
	for k, i := range idx {
		out[k] = prs[i]
	}
	return out
}

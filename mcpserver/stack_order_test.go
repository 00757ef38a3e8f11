package mcpserver

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// pr_monitor_start_all lists each stack together, bottom up, where its bottom was found; a fork's
// branch of the same name stacks nothing, and pull requests not in a stack keep the search's order.
func TestStartAllListsStacksBottomUp(t *testing.T) {
	found := func(repo string, n int, head, base string) ghclient.FoundPR {
		return ghclient.FoundPR{Ref: prstatus.PRRef{Owner: "acme", Repo: repo, Number: n}, HeadRef: head, BaseRef: base}
	}
	fork := found("widgets", 9, "part-1", "main")
	fork.IsCrossRepository = true
	prs := []ghclient.FoundPR{
		found("widgets", 3, "part-3", "part-2"),
		found("gadgets", 8, "fix", "main"),
		found("widgets", 1, "part-1", "main"),
		fork,
		found("widgets", 2, "part-2", "part-1"),
		found("gadgets", 7, "more", "part-2"), // another repository's part-2
	}
	var got []int
	for _, p := range foundInStackOrder(prs) {
		got = append(got, p.Ref.Number)
	}
	assert.Equal(t, []int{8, 1, 2, 3, 9, 7}, got)
}

// Status lists each stack together, bottom up, where its bottom's id puts it; next_step "all"
// ranks a pull request by how far up its stack it is.
func TestStatusListsStacksBottomUp(t *testing.T) {
	mon := func(n, on int) *monitor.Monitor {
		ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: n}
		f := &prstatus.Facts{}
		if on > 0 {
			f.StackedOn = &prstatus.StackBase{Number: on}
		}
		m := monitor.New(ref.String(), ref, time.Now(), statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{ID: ref.String(), Ref: ref}),
			monitor.NewMemoryState(), slog.New(slog.DiscardHandler), func() {}, stdioConsent())
		m.Attached(f, time.Now(), 0)
		return m
	}
	// #1 is stacked on #4, #4 on #2; #3 stands alone; #5 is stacked on #9, which no monitor watches.
	live := []*monitor.Monitor{mon(1, 4), mon(2, 0), mon(3, 0), mon(4, 2), mon(5, 9)}
	depth := stackDepths(live)
	assert.Equal(t, []int{2, 0, 0, 1, 1}, []int{depth[live[0]], depth[live[1]], depth[live[2]], depth[live[3]], depth[live[4]]})
	items := []contract.MonitorStatus{{MonitorID: "acme/widgets#1"}, {MonitorID: "acme/widgets#2"}, {MonitorID: "acme/widgets#3"},
		{MonitorID: "acme/widgets#4"}, {MonitorID: "acme/widgets#5"}, {MonitorID: "acme/widgets#0"}} // #0: saved, not live
	var got []string
	for _, it := range stackListed(items, live) {
		got = append(got, it.MonitorID)
	}
	assert.Equal(t, []string{"acme/widgets#0", "acme/widgets#2", "acme/widgets#4", "acme/widgets#1", "acme/widgets#3", "acme/widgets#5"}, got)
}

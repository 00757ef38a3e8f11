package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
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

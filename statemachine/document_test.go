package statemachine

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStateMachineDocIsCurrent(t *testing.T) {
	want, err := Document()
	require.NoError(t, err)
	got, err := os.ReadFile("../docs/state-machine.md")
	require.NoError(t, err, "docs/state-machine.md is missing: run go generate ./statemachine")
	assert.Equal(t, want, string(got), "docs/state-machine.md is stale: run go generate ./statemachine (or go tool -modfile=tools/go.mod task generate)")
}

func TestTableIsCoherent(t *testing.T) {
	names := map[Transition]bool{}
	leaves := map[[2]string]Transition{} // (node, row name) is looplab's key: it must be unique
	reached := map[Node]bool{NodeIdle: true}
	used := map[Guard]bool{}
	for _, r := range Table() {
		assert.False(t, names[r.Name], "row %s listed twice", r.Name)
		names[r.Name] = true
		assert.True(t, r.To.Valid(), "%s goes to unknown node %s", r.Name, r.To)
		assert.NotEmpty(t, r.From, "%s leaves no node", r.Name)
		assert.NotEmpty(t, r.On, "%s says what fires it", r.Name)
		for _, n := range r.From {
			assert.True(t, n.Valid(), "%s leaves unknown node %s", r.Name, n)
			leaves[[2]string{string(n), string(r.Name)}] = r.Name
		}
		for _, g := range r.Guards {
			_, ok := guards[g]
			assert.True(t, ok, "%s names guard %s, which has no condition", r.Name, g)
			used[g] = true
		}
		for _, on := range r.On {
			decided := on.By == ByDecision
			for _, n := range r.From {
				assert.Equal(t, n.transient(), decided, "%s: only a step's own decision leaves %s, and only a transient node", r.Name, n)
			}
		}
		reached[r.To] = true
	}
	for g := range guards {
		assert.True(t, used[g], "guard %s is used by no row", g)
	}
	assert.Len(t, nodeOrder, len(nodes), "every node is listed once in nodeOrder")
	for _, n := range nodeOrder {
		_, ok := nodes[n]
		assert.True(t, ok, "%s has no node info", n)
		assert.True(t, reached[n], "node %s can never be reached", n)
		if n != NodeStopped {
			assert.True(t, canLeave(n), "node %s is a dead end", n)
		}
	}
	diagram, err := Mermaid()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(diagram, "stateDiagram-v2\n    [*] --> idle\n"), "the diagram starts at idle")
}

// TestEveryStepHasItsNode: each question, task and server action a flow waits on has exactly one
// node, so where the monitor is can be read off the node alone.
func TestEveryStepHasItsNode(t *testing.T) {
	seen := map[string]Node{}
	for _, n := range nodeOrder {
		info := nodes[n]
		var keys []string
		switch {
		case info.question != "":
			keys = []string{string(info.question)}
		case info.task != "":
			k := string(info.task)
			if info.followUp {
				k += " follow-up"
			}
			keys = []string{k}
		default:
			for _, s := range info.server {
				keys = append(keys, string(s))
			}
		}
		for _, k := range keys {
			k = string(info.flow) + "/" + k
			prev, dup := seen[k]
			assert.False(t, dup, "%s and %s both hold %s", prev, n, k)
			seen[k] = n
		}
	}
	assert.Equal(t, NodeCommentsFollowingUp, taskNode(FlowComments, TaskAddressComment, true))
	assert.Equal(t, NodeCommentsAddressing, taskNode(FlowComments, TaskAddressComment, false))
	assert.Equal(t, NodeCIRerunning, serverNode(FlowCI, ServerRerunAll))
	assert.Equal(t, NodeReadyMergeRefused, questionNode(FlowReady, "merge_refused"))
}

func canLeave(n Node) bool {
	return slices.ContainsFunc(Table(), func(r Row) bool { return r.To != n && slices.Contains(r.From, n) })
}

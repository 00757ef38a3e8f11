package statemachine

import (
	"os"
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
	assert.Equal(t, want, string(got), "docs/state-machine.md is stale: run go generate ./statemachine (or go tool task generate)")
}

func TestTableIsCoherent(t *testing.T) {
	names := map[string]bool{}
	reached := map[Node]bool{NodeIdle: true}
	for _, tr := range Table() {
		assert.False(t, names[tr.Name], "transition %s listed twice", tr.Name)
		names[tr.Name] = true
		assert.True(t, tr.To.Valid(), "%s goes to unknown node %s", tr.Name, tr.To)
		assert.NotEmpty(t, tr.On, "%s says when it fires", tr.Name)
		for _, n := range tr.From {
			assert.True(t, n.Valid(), "%s leaves unknown node %s", tr.Name, n)
		}
		reached[tr.To] = true
	}
	for n := range nodes {
		assert.True(t, reached[n], "node %s can never be reached", n)
		if n != NodeStopped {
			assert.True(t, canLeave(n), "node %s is a dead end", n)
		}
	}
	diagram, err := Mermaid()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(diagram, "stateDiagram-v2\n    [*] --> idle\n"), "the diagram starts at idle")
}

func canLeave(n Node) bool {
	for _, tr := range Table() {
		for _, f := range tr.From {
			if f == n && tr.To != n {
				return true
			}
		}
	}
	return false
}

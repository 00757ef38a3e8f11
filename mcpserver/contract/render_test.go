package contract

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/statemachine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAResultThatCannotBeEncodedIsAToolError(t *testing.T) {
	res := Result(map[string]any{"f": func() {}})
	assert.True(t, res.IsError)
	ok := Result(map[string]any{"fence": "<<<a & b>>>"})
	assert.False(t, ok.IsError)
	require.Len(t, ok.Content, 1)
	text, _ := ok.Content[0].(mcp.TextContent)
	assert.Equal(t, `{"fence":"<<<a & b>>>"}`, text.Text, "the text a model reads keeps <, > and & as they are")
}

func TestAnOutputNamesNoFlowWhenTheActionHasNone(t *testing.T) {
	for _, c := range []struct {
		flow statemachine.Flow
		want string
	}{{statemachine.FlowNone, ""}, {statemachine.FlowReady, string(statemachine.FlowReady)}} {
		out := AgentAction("acme/widgets#7", "acme/widgets#7", "one line", statemachine.Action{Kind: statemachine.ActionPolling, Flow: c.flow})
		assert.Equal(t, c.want, out.Flow)
		assert.Equal(t, "one line", out.Summary)
		assert.Equal(t, `pr_monitor_next_step(monitor_id="acme/widgets#7", event="ready")`, out.Next)
		assert.Equal(t, `pr_monitor_next_step(monitor_id="all", event="ready")`, ViaAll(out).Next)
	}
}

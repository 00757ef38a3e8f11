package contract

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
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

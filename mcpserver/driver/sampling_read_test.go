package driver

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
)

// TestSamplingTextReadsEveryShapeTheContentArrivesIn: mcp-go hands a sampling result's content on
// as a value, a pointer, a decoded JSON object or a list of parts, depending on the era and the
// client; the text is the same in each.
func TestSamplingTextReadsEveryShapeTheContentArrivesIn(t *testing.T) {
	tests := []struct {
		name    string
		content any
		want    string
	}{
		{"text content", mcp.TextContent{Type: "text", Text: "  Implement it. \n"}, "Implement it."},
		{"pointer to text content", &mcp.TextContent{Type: "text", Text: "Implement it."}, "Implement it."},
		{"a decoded object", map[string]any{"type": "text", "text": " Implement it.\n"}, "Implement it."},
		{"an object without text", map[string]any{"type": "image", "data": "…"}, ""},
		{"a list of parts", []any{map[string]any{"type": "text", "text": "one"}, "stray", map[string]any{"type": "image"}, map[string]any{"type": "text", "text": "two "}}, "one\ntwo"},
		{"an empty list", []any{}, ""},
		{"an image", mcp.ImageContent{Type: "image", Data: "…", MIMEType: "image/png"}, ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, samplingText(&mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: tt.content}}))
		})
	}
	assert.Empty(t, samplingText(nil), "no result")
}

// TestAClassificationCountsOnlyAnOfferedChoice: the model's JSON is found inside fences and
// prose; a choice the question does not offer, or none, makes the answer a custom instruction.
func TestAClassificationCountsOnlyAnOfferedChoice(t *testing.T) {
	q := elicitation.Question{ID: elicitation.QMergeConflict, Choices: []elicitation.Choice{
		{Value: elicitation.Rebase, Label: "Rebase"}, {Value: elicitation.HandleMyself, Label: "I'll handle it"}}}
	tests := []struct {
		name      string
		text      string
		want      elicitation.Value
		reasoning string
		ok        bool
	}{
		{name: "bare JSON", text: `{"choice": "rebase", "reasoning": "they said rebase"}`, want: elicitation.Rebase, reasoning: "they said rebase", ok: true},
		{name: "fenced JSON", text: "```json\n{\"choice\": \"handle_myself\", \"reasoning\": \"r\"}\n```", want: elicitation.HandleMyself, reasoning: "r", ok: true},
		{name: "plain fence", text: "```\n{\"choice\": \"rebase\"}\n```", want: elicitation.Rebase, ok: true},
		{name: "prose around it", text: `Sure. Here it is: {"choice": "rebase", "reasoning": "r"} Hope that helps.`, want: elicitation.Rebase, reasoning: "r", ok: true},
		{name: "nested object", text: `{"choice": "rebase", "reasoning": "r", "extra": {"a": 1}}`, want: elicitation.Rebase, reasoning: "r", ok: true},
		{name: "a choice not offered", text: `{"choice": "merge", "reasoning": "r"}`, reasoning: "r"},
		{name: "no choice", text: `{"choice": null, "reasoning": "a condition"}`, reasoning: "a condition"},
		{name: "no JSON", text: "rebase, I think"},
		{name: "a brace but no object", text: "} then {"},
		{name: "empty", text: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, reasoning, ok := readClassification(tt.text, q)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, v)
			assert.Equal(t, tt.reasoning, reasoning)
		})
	}
}

func TestReadCategoryTakesOnlyANameFromTheList(t *testing.T) {
	for text, want := range map[string]string{"security": "security", " Security.\n": "security", "`naming`": "naming", `"other"`: "other"} {
		c, ok := readCategory(text)
		assert.True(t, ok, text)
		assert.Equal(t, want, string(c), text)
	}
	for _, text := range []string{"", "securty", "security and naming", "I think it is security"} {
		_, ok := readCategory(text)
		assert.False(t, ok, text)
	}
}

package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
)

// TestAFormSaysTheSummaryFirstAndSpeaksTheClientsEnumDialect: the form's message is the
// question, after the monitor's summary when there is one; a client of a version before
// 2025-11-25 gets enum and enumNames, any later one (or one that names none) titled oneOf.
func TestAFormSaysTheSummaryFirstAndSpeaksTheClientsEnumDialect(t *testing.T) {
	q := elicitation.Question{ID: "q", Seq: 3, Text: "Rebase?",
		Choices: []elicitation.Choice{{Value: "rebase", Label: "Rebase it"}, {Value: "stop", Label: "Stop"}}}
	for _, tc := range []struct {
		name, summary, version string
		message                string
		legacy                 bool
	}{
		{"no summary", "", "2025-11-25", "Rebase?", false},
		{"a summary", "acme/widgets#7: conflicts", "2025-11-25", "acme/widgets#7: conflicts\n\nRebase?", false},
		{"a later version", "", "2026-07-28", "Rebase?", false},
		{"no version named", "", "", "Rebase?", false},
		{"an earlier version", "", "2025-06-18", "Rebase?", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := QuestionForm(q, tc.summary, tc.version)
			assert.Equal(t, tc.message, p.Message)
			choice := p.RequestedSchema.(map[string]any)["properties"].(map[string]any)[fieldChoice].(map[string]any)
			if tc.legacy {
				assert.Equal(t, []string{"rebase", "stop"}, choice["enum"])
				assert.Equal(t, []string{"Rebase it", "Stop"}, choice["enumNames"])
				assert.NotContains(t, choice, "oneOf")
				assert.Empty(t, p.Mode)
				return
			}
			assert.Equal(t, []map[string]any{{"const": "rebase", "title": "Rebase it"}, {"const": "stop", "title": "Stop"}}, choice["oneOf"])
			assert.NotContains(t, choice, "enum")
			assert.Equal(t, "form", p.Mode)
			assert.EqualValues(t, 3, p.Meta.AdditionalFields["prmonitor/seq"])
		})
	}
}

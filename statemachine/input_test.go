package statemachine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEachDataFieldTakesUpToItsLimitAndNoMore: every text field of an event's data takes
// maxDataText bytes (GitHub's own comment limit leaves room for the marker) and refuses one more.
func TestEachDataFieldTakesUpToItsLimitAndNoMore(t *testing.T) {
	fields := map[string]func(*EventData, string){
		"reply_text":     func(d *EventData, s string) { d.ReplyText = s },
		"findings":       func(d *EventData, s string) { d.Findings = s },
		"suggested_fix":  func(d *EventData, s string) { d.SuggestedFix = s },
		"issue_type":     func(d *EventData, s string) { d.IssueType = s },
		"recommendation": func(d *EventData, s string) { d.Recommendation = s },
	}
	for name, set := range fields {
		t.Run(name, func(t *testing.T) {
			var at, over EventData
			set(&at, strings.Repeat("x", maxDataText))
			set(&over, strings.Repeat("x", maxDataText+1))
			assert.NoError(t, at.validate(), "exactly the limit")
			err := over.validate()
			require.ErrorIs(t, err, ErrBadInput, "one byte over")
			assert.Contains(t, err.Error(), "data."+name)
		})
	}
}

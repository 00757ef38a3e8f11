package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const head = "1a2b3c4d5e6f70819a2b3c4d5e6f70819a2b3c4d"

func TestNamesHead(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Fix plan for " + head, true},
		{"Fix plan for 1a2b3c4", true},
		{"fix plan for `1A2B3C4D`:", true},
		{"**Fix plan for** 1a2b3c4", true},
		{"Fix plan for 1a2b3c", false}, // six characters are not enough
		{"Fix plan for 1a2b3c5", false},
		{"Fix plan for 0a2b3c4d5e", false},
		{"A fix plan for nothing, then Fix plan for 1a2b3c4d", true},
		{"Plan for 1a2b3c4", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, namesHead(tt.text, fixPlanMarker, head), tt.text)
	}
	assert.False(t, namesHead("Fix plan for 1a2b3c4", fixPlanMarker, ""), "no head, no match")
}

func TestBotMarkers(t *testing.T) {
	body := "<!-- review-bot:Sonnet -->\nEvaluated against 1a2b3c4\nFinding #2: x\nfinding #1 y\nFinding #2 again\nsee #7"
	assert.Equal(t, []string{"sonnet"}, botNames(body))
	assert.Equal(t, []int{1, 2}, findings(body), "Finding lines only, sorted, once each")
	assert.Equal(t, []int{1, 2, 7}, namedFindings(body))
	assert.True(t, namesHead(body, evaluatedMarker, head))
	assert.Empty(t, botNames("<!-- reviewbot:sonnet -->"))
}

func TestAssess(t *testing.T) {
	assert.Equal(t, assessmentOK, assess("Assessment: ✅ Clean"))
	assert.Equal(t, assessmentOK, assess("**Assessment:** ✅ **Clean**"))
	assert.Equal(t, assessmentFound, assess("Assessment: ⚠️ 2 findings"))
	assert.Equal(t, assessmentFound, assess("Assessment: ⚠ (no variation selector)"))
	assert.Equal(t, assessmentFound, assess("Assessment: ✅ Clean\nAssessment: ⚠️"), "findings win")
	assert.Equal(t, assessmentNone, assess("Looks fine to me."))
}

package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsDependencyBotKnowsDependabotAndRenovateInEverySpelling(t *testing.T) {
	tests := []struct {
		login string
		want  bool
	}{
		{"dependabot", true},
		{"dependabot[bot]", true},
		{"Dependabot[bot]", true},
		{"app/dependabot", true},
		{"renovate", true},
		{"renovate[bot]", true},
		{"renovate-bot", true},
		{"copilot-pull-request-reviewer[bot]", false},
		{"dependabot-fan", false},
		{"octocat", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.login, func(t *testing.T) {
			assert.Equal(t, tt.want, IsDependencyBot(tt.login))
		})
	}
}

package board

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

func TestEventsReadAsSentencesInPlainWords(t *testing.T) {
	bob := sanitize.NewFencer([]byte("k")).Fence("bob")
	tests := []struct {
		what string
		want []sanitize.Part
	}{
		{"re-read the head: the agent sent ready during investigate_ci_failure → execute",
			[]sanitize.Part{{Text: "Re-read the head: the agent sent ready during investigate ci failure; then a task for the agent."}}},
		{"read: ready to merge → ask_user", []sanitize.Part{{Text: "Read the pull request: ready to merge; then a question for you."}}},
		{"GitHub: pull_request_review.submitted", []sanitize.Part{{Text: "GitHub: pull request review submitted."}}},
		{"agent: ready → polling", []sanitize.Part{{Text: "The agent asked for its next step; then watching GitHub."}}},
		{"agent: user_chose merge → server", []sanitize.Part{{Text: "Answered: merge; then GitHub work."}}},
		{"agent: form declined → polling", []sanitize.Part{{Text: "The question was declined; then watching GitHub."}}},
		{"read failed", []sanitize.Part{{Text: "Could not read the pull request."}}},
		{"GitHub: reply to " + bob + " → polling",
			[]sanitize.Part{{Text: "GitHub: reply to "}, {Text: "bob", GitHub: true}, {Text: "; then watching GitHub."}}},
		{"", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, eventWords(tt.what), tt.what)
	}
}

func fenced(s string) string { return sanitize.NewFencer([]byte("k")).Fence(s) }

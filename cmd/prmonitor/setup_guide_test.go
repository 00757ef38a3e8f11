package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestGuideIsOneTextInEachHostsFormat: every host's instructions file is the same text under the
// header its host reads (Agent Skill, VS Code instructions, Cursor rule), and the text teaches the
// loop with the tools' real names.
func TestGuideIsOneTextInEachHostsFormat(t *testing.T) {
	var bodies []string
	for _, f := range []guideFormat{formatSkill, formatInstructions, formatCursorRule} {
		text := renderGuide(f)
		require.True(t, strings.HasPrefix(text, "---\n"))
		front, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
		require.True(t, ok, text)
		var meta map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(front), &meta), front)
		assert.Equal(t, guideDescription, meta["description"], "the description reads back as written, unquoted")
		switch f {
		case formatCursorRule:
			assert.Equal(t, false, meta["alwaysApply"], "an agent-requested rule, not one in every request")
			assert.Contains(t, meta, "globs")
		default:
			assert.Equal(t, "prmonitor", meta["name"])
		}
		assert.Contains(t, body, guideMarker)
		bodies = append(bodies, body)
	}
	assert.Equal(t, bodies[0], bodies[1])
	assert.Equal(t, bodies[0], bodies[2])

	// Agent Skills: a lowercase name, a description of at most 1024 characters.
	assert.Regexp(t, regexp.MustCompile(`^[a-z0-9-]{1,64}$`), serverName)
	assert.LessOrEqual(t, len(guideDescription), 1024)
	for _, s := range []string{"pr_monitor_start(", "pr_monitor_start_all", "pr_monitor_next_step(monitor_id, event=\"ready\")",
		`monitor_id="all"`, "expected_events", `event="user_chose"`, "question_seq", "polling", "merged", "untrusted GitHub text", "pr_monitor_stop",
		"--dangerously-load-development-channels server:prmonitor", `<channel source="prmonitor">`, "need not wait"} {
		assert.Contains(t, guideBody, s)
	}
	assert.Less(t, strings.Count(guideBody, "\n"), 30, "a few lines, not a manual")
}

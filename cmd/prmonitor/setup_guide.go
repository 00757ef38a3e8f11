package main

import (
	_ "embed"
	"strings"
)

// guideBody teaches an agent prmonitor's loop. It is the one text behind every host's
// instructions file; renderGuide only puts each host's header on it.
//
//go:embed setup_guide.md
var guideBody string

// guideDescription is what a host reads to decide when the instructions apply.
const guideDescription = "Keep watching a GitHub pull request until it is merged, with the prmonitor MCP server " +
	"(pr_monitor_start, pr_monitor_next_step). Use when the user asks to watch, monitor or babysit a pull " +
	"request or all of their open pull requests, or after pushing a branch that has one."

// guideMarker is in every file setup writes, so --uninstall removes only files setup wrote.
const guideMarker = "<!-- Installed by `prmonitor setup`; `prmonitor setup HOST --uninstall` removes it. -->"

// guideFormat is how a host wants its instructions file.
type guideFormat int

const (
	// formatSkill is an Agent Skill (Claude Code, Copilot CLI): SKILL.md with a name and a
	// description the agent matches the user's request against.
	formatSkill guideFormat = iota + 1
	// formatInstructions is a VS Code instructions file (NAME.instructions.md): applied when the
	// description matches the task.
	formatInstructions
	// formatCursorRule is a Cursor project rule (NAME.mdc), "agent requested": the agent reads it
	// when the description matches.
	formatCursorRule
)

// renderGuide is the instructions file for a host's format. The description is a plain YAML
// scalar (no quotes), as the hosts' own examples write it: Cursor's front matter is not read as
// full YAML.
func renderGuide(f guideFormat) string {
	front := "name: " + serverName + "\ndescription: " + guideDescription
	if f == formatCursorRule {
		front = "description: " + guideDescription + "\nglobs:\nalwaysApply: false"
	}
	return "---\n" + front + "\n---\n\n" + guideMarker + "\n\n" + strings.TrimSpace(guideBody) + "\n"
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // part of stdout ("" means stdout is empty)
		wantStderr string // part of stderr ("" means stderr is empty)
	}{
		{name: "version", args: []string{"version"}, wantCode: exitOK, wantStdout: "prmonitor dev ("},
		{name: "--version", args: []string{"--version"}, wantCode: exitOK, wantStdout: "prmonitor dev ("},
		{name: "help", args: []string{"help"}, wantCode: exitOK, wantStdout: "usage: prmonitor <command>"},
		{name: "-h", args: []string{"-h"}, wantCode: exitOK, wantStdout: "prmonitor check [--json]"},
		{name: "no command", args: nil, wantCode: exitUsage, wantStderr: "usage: prmonitor <command>"},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: exitUsage, wantStderr: `prmonitor: unknown command "frobnicate"`},
		{name: "unknown command with control characters", args: []string{"x\x1b[2Jy"}, wantCode: exitUsage, wantStderr: `unknown command "xy"`},
		{name: "check --help", args: []string{"check", "--help"}, wantCode: exitOK, wantStdout: "usage: prmonitor check [--json] [--github-url URL] [--verbose] OWNER/REPO#N|PR-URL"},
		{name: "check --help names --review-bots", args: []string{"check", "--help"}, wantCode: exitOK, wantStdout: "\n  --review-bots LOGINS\n"},
		{name: "help setup", args: []string{"help", "setup"}, wantCode: exitOK, wantStdout: "usage: prmonitor setup [--workspace DIR]"},
		{name: "demo --help", args: []string{"demo", "-h"}, wantCode: exitOK, wantStdout: "usage: prmonitor demo"},
		{name: "demo with an argument", args: []string{"demo", "now"}, wantCode: exitUsage, wantStderr: `prmonitor demo: takes no arguments, got "now"`},
		{name: "demo with an unknown flag", args: []string{"demo", "--fast"}, wantCode: exitUsage, wantStderr: "prmonitor demo: unknown flag --fast"},
		{name: "fsm --mermaid", args: []string{"fsm", "--mermaid"}, wantCode: exitOK, wantStdout: "stateDiagram"},
		{name: "fsm --help", args: []string{"fsm", "--help"}, wantCode: exitOK, wantStdout: "usage: prmonitor fsm"},
		{name: "fsm without a format", args: []string{"fsm"}, wantCode: exitUsage, wantStderr: "prmonitor fsm: choose exactly one of --mermaid or --markdown"},
		{name: "fsm with both formats", args: []string{"fsm", "--mermaid", "--markdown"}, wantCode: exitUsage, wantStderr: "choose exactly one"},
		{name: "fsm with an argument", args: []string{"fsm", "--mermaid", "extra"}, wantCode: exitUsage, wantStderr: "choose exactly one"},
		{name: "fsm with an unknown flag", args: []string{"fsm", "--svg"}, wantCode: exitUsage, wantStderr: "prmonitor fsm: unknown flag --svg"},
		{name: "fsm with a bad boolean", args: []string{"fsm", "--mermaid=maybe"}, wantCode: exitUsage, wantStderr: `prmonitor fsm: --mermaid "maybe": want true or false`},
		{name: "fsm --out into a missing directory", args: []string{"fsm", "--mermaid", "--out", filepath.Join(os.DevNull, "x", "fsm.md")}, wantCode: exitFailure, wantStderr: "prmonitor fsm: open "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, nil, tt.args...)
			assert.Equal(t, tt.wantCode, res.code, "stderr: %s", res.stderr)
			if tt.wantStdout == "" {
				assert.Empty(t, res.stdout)
			} else {
				assert.Contains(t, res.stdout, tt.wantStdout)
			}
			if tt.wantStderr == "" {
				assert.Empty(t, res.stderr)
			} else {
				assert.Contains(t, res.stderr, tt.wantStderr)
			}
			assert.NotContains(t, res.stdout+res.stderr, "\x1b")
		})
	}
}

func TestFlagErrorsAreOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--bogus"},
		{"check", "--json=nope", "o/r#1"},
		{"fsm", "--svg"},
		{"demo", "--fast"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			res := runCLI(t, nil, args...)
			assert.Equal(t, exitUsage, res.code)
			assert.Empty(t, res.stdout)
			assert.Regexp(t, `^prmonitor \w+: [^\n]+ \(see 'prmonitor \w+ --help'\)\n$`, res.stderr)
		})
	}
}

func TestFSMOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fsm.mmd")
	res := runCLI(t, nil, "fsm", "--out", out, "--mermaid")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Empty(t, res.stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), "stateDiagram")
}

func TestExitCodesAreDistinct(t *testing.T) {
	codes := []int{exitOK, exitFailure, exitUsage, exitNoToken, exitAuth, exitNotFound, exitUnreachable, exitRateLimited}
	seen := map[int]bool{}
	for _, c := range codes {
		assert.False(t, seen[c], "exit code %d used twice", c)
		seen[c] = true
	}
}

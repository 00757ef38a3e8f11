package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helpFlags runs `prmonitor NAME --help` and returns the flags its flags section lists: the
// section is printed from the flag set the command parses.
func helpFlags(t *testing.T, name string) (help string, flags []string) {
	t.Helper()
	res := runCLI(t, nil, name, "--help")
	require.Equal(t, exitOK, res.code, res.stderr)
	require.Empty(t, res.stderr)
	_, section, _ := strings.Cut(res.stdout, "\nflags:\n")
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(section, -1) {
		flags = append(flags, m[1])
	}
	return res.stdout, flags
}

// flagMentions are the --flags named in text.
var flagMention = regexp.MustCompile(`--([a-z][a-z-]*[a-z])`)

// The top-level usage lists every command with its main forms; a change to it is a change to this
// golden file.
func TestTheUsageListsEveryCommandAndItsMainForms(t *testing.T) {
	res := runCLI(t, nil, "help")
	require.Equal(t, exitOK, res.code)
	for _, c := range commands {
		for _, f := range c.cmd.forms() {
			assert.Contains(t, res.stdout, "prmonitor "+f, "the usage shows %s's form", c.cmd.name)
		}
	}
	matchGolden(t, "usage.golden", res.stdout)
	assert.Equal(t, res.stdout, runCLI(t, nil, "--help").stdout)
	assert.Equal(t, res.stdout, runCLI(t, nil).stderr, "no command: the usage on stderr")
}

// Every flag a usage line or a command's paragraph names is one the command parses, and every
// flag it parses says what argument it takes in words of its own.
func TestEveryFlagTheHelpNamesIsOneTheCommandParses(t *testing.T) {
	usage := runCLI(t, nil, "help").stdout
	for _, c := range commands {
		t.Run(c.cmd.name, func(t *testing.T) {
			help, flags := helpFlags(t, c.cmd.name)
			assert.True(t, strings.HasPrefix(help, "usage: prmonitor "+c.cmd.synopsis+"\n"), "%q", help)
			texts := append(c.cmd.forms(), c.cmd.about)
			for _, l := range strings.Split(usage, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "prmonitor "+c.cmd.name+" ") {
					texts = append(texts, l)
				}
			}
			for _, text := range texts {
				for _, m := range flagMention.FindAllStringSubmatch(text, -1) {
					assert.Contains(t, flags, m[1], "%q names --%s, which %s does not parse", text, m[1], c.cmd.name)
				}
			}
			_, section, _ := strings.Cut(help, "\nflags:\n")
			assert.NotRegexp(t, `(?m)^  --[a-z-]+ (value|string|int|duration|float)$`, section,
				"each flag names its argument (a `WORD` in its usage)")
		})
	}
}

// The README's table of serve flags lists exactly the flags serve parses.
func TestTheReadmesServeFlagsAreTheOnesServeParses(t *testing.T) {
	_, flags := helpFlags(t, "serve")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "**`prmonitor serve` flags**")
	require.True(t, ok, "the README has a table of serve's flags")
	table, _, _ = strings.Cut(table, "\n\n## ")
	var documented []string
	for _, row := range strings.Split(table, "\n") {
		if cells := strings.Split(row, "|"); len(cells) > 2 {
			for _, m := range flagMention.FindAllStringSubmatch(cells[1], -1) {
				documented = append(documented, m[1])
			}
		}
	}
	slices.Sort(documented)
	assert.Equal(t, flags, slices.Compact(documented))
}

// Arguments a command does not take and durations that cannot be meant are usage errors, said
// on one stderr line, with nothing on stdout (stdout is serve's protocol).
func TestStrayArgumentsAndInvalidDurationsAreUsageErrors(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"serve", "extra"}, `prmonitor serve: takes no arguments, got "extra"`},
		{[]string{"version", "extra"}, `prmonitor version: takes no arguments, got "extra"`},
		{[]string{"demo", "extra"}, `prmonitor demo: takes no arguments, got "extra"`},
		{[]string{"serve", "--max-block", "0"}, `prmonitor serve: --max-block "0": a duration must be more than zero`},
		{[]string{"serve", "--max-block", "-5s"}, `prmonitor serve: --max-block "-5s": a duration must be more than zero`},
		{[]string{"serve", "--progress-every", "0s"}, `prmonitor serve: --progress-every "0s": a duration must be more than zero`},
		{[]string{"serve", "--poll-busy", "-1m"}, `prmonitor serve: --poll-busy "-1m": a duration must be more than zero`},
		{[]string{"serve", "--poll-quiet", "soon"}, `prmonitor serve: --poll-quiet "soon": not a duration: write it as 90s, 2m or 1h30m`},
		{[]string{"serve", "--max-block"}, `prmonitor serve: --max-block needs a value`},
		{[]string{"serve", "--checks-grace", "-1s"}, `prmonitor serve: --checks-grace must be 0 or more, not -1s`},
		{[]string{"status", "--limit", "many"}, `prmonitor status: --limit "many": not a valid value`},
		{[]string{"serve", "--log-format", "xml"}, `prmonitor serve: --log-format must be text or json, not "xml"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := tt.args
			if args[0] == "serve" || args[0] == "status" {
				args = append([]string{args[0], "--state-dir", t.TempDir()}, args[1:]...)
			}
			res := runCLI(t, withToken(), args...)
			assert.Equal(t, exitUsage, res.code)
			assert.Empty(t, res.stdout)
			assert.True(t, strings.HasPrefix(res.stderr, tt.stderr), "%q", res.stderr)
			assert.Equal(t, 1, strings.Count(res.stderr, "\n"), "one line: %q", res.stderr)
		})
	}
}

// version --help describes the command, like every other command's --help.
func TestVersionHelpPrintsHelp(t *testing.T) {
	res := runCLI(t, nil, "version", "--help")
	require.Equal(t, exitOK, res.code)
	assert.True(t, strings.HasPrefix(res.stdout, "usage: prmonitor version\n"), "%q", res.stdout)
	assert.NotContains(t, res.stdout, "prmonitor dev")
}

// prmonitor help COMMAND prints the command's own help, as prmonitor COMMAND --help does.
func TestHelpNamesACommand(t *testing.T) {
	for _, c := range commands {
		t.Run(c.cmd.name, func(t *testing.T) {
			res := runCLI(t, nil, "help", c.cmd.name)
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Equal(t, runCLI(t, nil, c.cmd.name, "--help").stdout, res.stdout)
			assert.Contains(t, res.stdout, "usage: prmonitor "+c.cmd.synopsis+"\n")
		})
	}
	res := runCLI(t, nil, "help", "frobnicate")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.stderr, `prmonitor help: unknown command "frobnicate"`)
	assert.Empty(t, res.stdout)
}

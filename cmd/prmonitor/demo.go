package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

var demoCommand = command{
	name:     "demo",
	synopsis: "demo",
	about: `Play a pull request from push to merge on a simulated GitHub (a loopback port, no token, no network):
CI fails and is fixed, a reviewer requests changes with three threads, the agent refines and answers
them (pushing back on one), the reviewer agrees and approves, and the user chooses to merge. The
prmonitor MCP server runs for real over stdio; a scripted agent and user drive it through an MCP
client. It takes a few seconds once built (the first go run ./cmd/prmonitor demo on a machine first downloads
and compiles prmonitor: a couple of minutes on 2 cores).`,
}

// runDemo is `prmonitor demo`.
func runDemo(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	if code, ok := parseNoArguments(fs, demoCommand, args, e); !ok {
		return code
	}
	out := bufio.NewWriter(e.Stdout)
	err := playDemo(ctx, e, out)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor demo: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	return exitOK
}

// playDemo runs the agent's loop against the server until the pull request is merged.
func playDemo(ctx context.Context, e env, w io.Writer) error {
	t := &transcript{w: w, e: e}
	d, err := startDemo(ctx, e, t)
	if err != nil {
		return err
	}
	defer d.stop()
	t.intro(d)
	for _, ev := range demoSetup() {
		t.line("github", "%s", ev.Describe())
	}
	d.apply(demoSetup()...)

	var start contract.StartOutput
	t.line("agent", "pushed the branch; calls pr_monitor_start(%s)", d.ref)
	if err := d.call(ctx, "pr_monitor_start", map[string]any{"pr": d.ref.String()}, &start); err != nil {
		return err
	}
	t.line("server", "%s", start.Summary)

	timeline := demoTimeline()
	event, choice, data := "ready", "", map[string]any(nil)
	idle := 0
	for turn := 0; turn < 60; turn++ {
		var act contract.ActionOutput
		t.call(event, choice)
		args := map[string]any{"monitor_id": start.MonitorID, "event": event}
		if choice != "" {
			args["choice"] = choice
		}
		if data != nil {
			args["data"] = data
		}
		if err := d.call(ctx, "pr_monitor_next_step", args, &act); err != nil {
			return err
		}
		event, choice, data = "ready", "", nil
		switch act.Action {
		case "merged", "stop":
			t.line("server", "%s: %s", act.Action, act.Message)
			t.outro(d)
			return nil
		case "polling":
			if len(timeline) == 0 {
				// The story is told; a slow machine may need another poll or two to see the end.
				if idle++; idle > 5 {
					return fmt.Errorf("the story ran out with the monitor still waiting: %s", act.Summary)
				}
				continue
			}
			t.line("server", "polling: nothing for the agent yet (%s)", act.Summary)
			d.fake.Advance(20 * 60e9)
			for _, ev := range timeline[0] {
				t.line("github", "%s", ev.Describe())
			}
			d.apply(timeline[0]...)
			timeline = timeline[1:]
		case "ask_user":
			t.line("server", "ask_user %s (this client cannot elicit): %s", act.Question.ID, act.Question.Text)
			event, choice = "user_chose", demoAnswers[string(act.Question.ID)]
		case "execute":
			t.task(act)
			var did string
			event, data, did = d.demoAgent(act)
			t.line("agent", "%s → %s", did, event)
		}
	}
	return fmt.Errorf("the story did not end")
}

// transcript prints the demo as a conversation between the agent, the server, the user, the host's
// model and GitHub.
type transcript struct {
	w   io.Writer
	e   env
	err error
}

func (t *transcript) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func (t *transcript) line(who, format string, args ...any) {
	t.printf("%-7s %s\n", who, sanitize.Line(fmt.Sprintf(format, args...)))
}

func (t *transcript) intro(d *demoSession) {
	t.printf("prmonitor demo: %s, %q, from push to merge\n", d.ref, demoTitle)
	t.printf("GitHub is simulated on %s (no token, no network); the prmonitor MCP server runs over stdio,\n", d.base)
	t.printf("driven by an MCP client (protocol %s) with a scripted agent, user and model.\n\n", "2026-07-28")
}

func (t *transcript) call(event, choice string) {
	if choice != "" {
		t.line("agent", "calls pr_monitor_next_step(event=%s, choice=%s)", event, choice)
		return
	}
	t.line("agent", "calls pr_monitor_next_step(event=%s)", event)
}

func (t *transcript) task(act contract.ActionOutput) {
	what := act.Task
	if c := act.Context; c != nil {
		switch {
		case c.Thread != nil:
			what += fmt.Sprintf(" for %s on %s:%d %q", c.Thread.Reviewer, c.Thread.Path, c.Thread.Line, text.ClipRunes(string(c.Thread.Comment), 60))
		case len(c.Reviews) > 0:
			what += fmt.Sprintf(" for %s's review with %s", c.Reviews[0].Reviewer, text.Count(len(c.Threads), "thread", "threads"))
		case len(c.Logs) > 0:
			what += fmt.Sprintf(" with the log tail of %s (%s)", c.Logs[0].Check, text.Count(strings.Count(string(c.Logs[0].Tail), "\n")+1, "line", "lines"))
		case c.SuggestedFix != "":
			what += ": " + c.SuggestedFix
		}
	}
	t.line("server", "execute %s (then send %s)", what, strings.Join(act.ExpectedEvents, " or "))
}

func (t *transcript) question(text string, choices []string) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, " · ") { // skip the PR summary line
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = []string{"(no text)"}
	}
	t.line("user", "is asked: %s", lines[0])
	for _, l := range lines[1:] {
		t.printf("%-7s   %s\n", "", sanitize.Line(l))
	}
	t.printf("%-7s   choices: %s\n", "", strings.Join(choices, " · "))
}

func (t *transcript) outro(d *demoSession) {
	merges, writes := 0, 0
	for _, m := range d.fake.Merges() {
		if m.Merged {
			merges++
		}
	}
	for _, r := range d.fake.Requests() {
		if (r.Kind == githubfake.KindREST && r.Method != "GET") || r.Operation == githubfake.OpMutation {
			writes++
		}
	}
	t.printf("\nDone. On GitHub: %s (one per poll, plus a thread read before each reply), %s,\n",
		text.Count(d.fake.GraphQLQueries(), "GraphQL read", "GraphQL reads"), text.Count(writes, "write", "writes"))
	t.printf("%s, chosen by the user; nothing closed, nothing deleted.\n", text.Count(merges, "merge", "merges"))
	for _, l := range nextSteps(t.e) {
		t.printf("%s\n", l)
	}
}

// nextSteps are the demo's last lines: commands the user can run from where they are. A binary
// 'go run' built is gone once the demo ends, so the first step is then installing it from the
// clone; an installed one is named as the shell finds it.
func nextSteps(e env) []string {
	exe, err := e.Executable()
	if err != nil || builtByGoRun(exe) {
		return []string{
			"Next: install it from this clone: `go install ./cmd/prmonitor` (into $(go env GOPATH)/bin; put that folder on your PATH),",
			"then `prmonitor setup claude-code` (or copilot-cli, vscode, cursor, all) registers it in your agent host,",
			"and `prmonitor check OWNER/REPO#N` shows what one of your pull requests needs now.",
		}
	}
	name := quoteArg(exe)
	for _, dir := range filepath.SplitList(e.Getenv("PATH")) {
		if dir != "" && filepath.Clean(dir) == filepath.Dir(exe) {
			name = filepath.Base(exe)
		}
	}
	return []string{
		fmt.Sprintf("Next: `%s setup claude-code` (or copilot-cli, vscode, cursor, all) registers prmonitor in your agent host,", name),
		fmt.Sprintf("and `%s check OWNER/REPO#N` shows what one of your pull requests needs now.", name),
	}
}

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// demoNarrator tells a demo's story on a terminal: each step of the scenario as it happens on the
// simulated GitHub, then what prmonitor derives from the pull request afterwards. It only prints:
// the caller plays the steps and fetches the facts, so a richer demo (an MCP session between the
// steps) can reuse it. The first write error is kept and reported by Err.
type demoNarrator struct {
	w     io.Writer
	total int       // steps in the scenario
	start time.Time // simulated time of the first step
	err   error
}

// narratorIndent lines up the facts under a step's description.
const narratorIndent = "          "

func newDemoNarrator(w io.Writer, total int, start time.Time) *demoNarrator {
	return &demoNarrator{w: w, total: total, start: start}
}

func (n *demoNarrator) printf(format string, args ...any) {
	if n.err != nil {
		return
	}
	_, n.err = fmt.Fprintf(n.w, format, args...)
}

// Intro names the scenario, the pull request and where the simulated GitHub runs.
func (n *demoNarrator) Intro(name string, ref prstatus.PRRef, viewer, baseURL string) {
	n.printf("prmonitor demo: %q, played on a simulated GitHub at %s\n", oneLine(name), baseURL)
	n.printf("(loopback only, a built-in fake token; after each step prmonitor fetches %s as %s\n", ref, viewer)
	n.printf("with its real GitHub client and prints what it derives)\n\n")
}

// Step prints step i (from 1) of the scenario, which happened at simulated time at.
func (n *demoNarrator) Step(i int, at time.Time, description string) {
	width := len(fmt.Sprint(n.total))
	n.printf("%*d/%d  %-7s %s\n", width, i, n.total, offset(at.Sub(n.start)), oneLine(description))
}

// Facts prints what prmonitor derived after a step: the attention with its reason, needs_refine
// and the CI counts.
func (n *demoNarrator) Facts(f prstatus.Facts) {
	n.printf("%s%-13s %s: %s\n", narratorIndent, "attention", f.Attention.Kind, oneLine(f.Attention.Reason))
	n.printf("%s%-13s %t\n", narratorIndent, "needs_refine", f.Refine.NeedsRefine)
	ci := f.CI
	n.printf("%s%-13s %d check%s: %d passed, %d failed, %d cancelled, %d pending\n\n", narratorIndent, "ci",
		ci.Total, plural(ci.Total), ci.Passed, ci.Failed, ci.Cancelled, ci.Pending)
}

// Outro closes the story.
func (n *demoNarrator) Outro(steps, graphQLQueries int) {
	n.printf("%d steps, %d GraphQL queries (one per poll). Try it on a real pull request:\n", steps, graphQLQueries)
	n.printf("  prmonitor check OWNER/REPO#N\n")
}

// Err is the first write error, if any.
func (n *demoNarrator) Err() error { return n.err }

// offset renders simulated time since the start: +0m, +42m, +2h05m.
func offset(d time.Duration) string {
	d = d.Round(time.Minute)
	if d < time.Hour {
		return fmt.Sprintf("+%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("+%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"time"

	"golang.org/x/term"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

var statusCommand = command{
	name:     "status",
	synopsis: "status [--state-dir DIR] [--limit N]",
	more:     []string{"status --json [--state-dir DIR]", "status --watch [--state-dir DIR]"},
	about: "List the monitors saved in the state directory, and say whether a server runs them: each PR, where its\n" +
		"monitor is, the question or task it waits on, its last event and since when, and the budget each watcher\n" +
		"spends of its token's points. It only reads: it takes no lock and writes nothing, so a running server is never\n" +
		"disturbed; before any server ran it prints an empty result. --json prints the same as one JSON document\n" +
		"(schema in docs/status.md); --watch keeps a live view open in the terminal, following the state directory\n" +
		"every second (arrows move, Enter shows a monitor whole, ? lists the keys, q quits).",
}

// runStatus prints the saved monitors, as a table, as JSON, or as a live view.
func runStatus(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	stateDir := fs.String("state-dir", "", "the state directory to read (`DIR`; default: the user's state directory, as serve uses)")
	asJSON := fs.Bool("json", false, "print one JSON document (schema in docs/status.md)")
	watch := fs.Bool("watch", false, "keep a live view open in the terminal (? lists its keys, q quits)")
	limit := fs.Int("limit", 50, "show at most `N` monitors in the table (0: all; --json always lists all)")
	rest, code, ok := parseFlags(fs, statusCommand, args, e)
	if !ok {
		return code
	}
	switch {
	case len(rest) > 0:
		fmt.Fprintf(e.Stderr, "prmonitor status: unexpected argument %q (see 'prmonitor status --help')\n", sanitize.Line(rest[0]))
		return exitUsage
	case *asJSON && *watch:
		fmt.Fprintln(e.Stderr, "prmonitor status: choose one of --json or --watch")
		return exitUsage
	case *limit < 0:
		fmt.Fprintln(e.Stderr, "prmonitor status: --limit must be 0 or more")
		return exitUsage
	}
	dir, err := statusDir(*stateDir, e)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	if *watch {
		return runStatusWatch(ctx, dir, e)
	}

	snap, err := readStatus(store.NewReader(dir, statusEvents), e.Now())
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(snap.report); err != nil {
			fmt.Fprintf(e.Stderr, "prmonitor status: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	writeStatus(e.Stdout, snap, terminalWidth(e.Stdout, defaultStatusWidth), *limit)
	return exitOK
}

// statusDir is the state directory to read: --state-dir, else the one serve uses by default.
func statusDir(flagDir string, e env) (string, error) {
	if flagDir != "" {
		return flagDir, nil
	}
	d, err := store.DefaultDir(e.Getenv, runtime.GOOS)
	if err != nil {
		return "", fmt.Errorf("find the state directory (use --state-dir): %w", err)
	}
	return d, nil
}

// statusSnapshot is one read of the state directory: the report, and the newest events of every
// monitor (for the live view).
type statusSnapshot struct {
	report statusReport
	recent []recentEvent
	// missing: the directory does not exist yet (no server has saved a monitor there).
	missing bool
}

// recentEvent is one event of one monitor's log.
type recentEvent struct {
	PR string
	statusEvent
}

// readStatus reads the state directory once. A directory that does not exist yet is an empty
// one: no server has saved anything there.
func readStatus(r *store.Reader, now time.Time) (statusSnapshot, error) {
	saved, err := r.Read()
	if errors.Is(err, fs.ErrNotExist) {
		return statusSnapshot{report: emptyStatus(r.Dir(), now), missing: true}, nil
	}
	if err != nil {
		return statusSnapshot{}, err
	}
	spend, spendErr := store.ReadSpend(r.Dir())
	snap := statusSnapshot{report: buildStatus(r.Dir(), saved, spend, spendErr, now, runningHolder(r.Dir()), runningServers(r.Dir()))}
	for _, s := range saved {
		if s.Problem != "" {
			continue
		}
		for _, ev := range typedEvents(s.Events) {
			snap.recent = append(snap.recent, recentEvent{PR: s.Record.Ref.String(), statusEvent: toldEvent(ev)})
		}
	}
	return snap, nil
}

// terminalWidth is w's width when it is a terminal, else fallback.
func terminalWidth(w io.Writer, fallback int) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return fallback
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return fallback
	}
	return width
}

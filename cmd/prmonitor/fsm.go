package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/prmonitor/prmonitor/statemachine"
)

var fsmCommand = command{
	name:     "fsm",
	synopsis: "fsm --mermaid [--out FILE]",
	more:     []string{"fsm --markdown [--out FILE]"},
	about:    "Print the monitor's state machine, drawn from its transition table.",
}

// runFSM prints the monitor's state machine, drawn from its transition table.
func runFSM(args []string, e env) int {
	fs := flag.NewFlagSet("fsm", flag.ContinueOnError)
	mermaid := fs.Bool("mermaid", false, "print the Mermaid state diagram")
	markdown := fs.Bool("markdown", false, "print docs/state-machine.md: the diagram, transitions, questions and tasks")
	out := fs.String("out", "", "write to this `file` instead of stdout")
	rest, code, ok := parseFlags(fs, fsmCommand, args, e)
	if !ok {
		return code
	}
	if len(rest) > 0 || *mermaid == *markdown {
		fmt.Fprintln(e.Stderr, "prmonitor fsm: choose exactly one of --mermaid or --markdown")
		return exitUsage
	}
	render := statemachine.Mermaid
	if *markdown {
		render = statemachine.Document
	}
	text, err := render()
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor fsm: %v\n", err)
		return exitFailure
	}
	if *out == "" {
		fmt.Fprint(e.Stdout, text)
		return exitOK
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor fsm: %v\n", err)
		return exitFailure
	}
	return exitOK
}

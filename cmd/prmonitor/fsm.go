package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prmonitor/prmonitor/statemachine"
)

// runFSM prints the monitor's state machine, drawn from its transition table.
func runFSM(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fsm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mermaid := fs.Bool("mermaid", false, "print the Mermaid state diagram")
	markdown := fs.Bool("markdown", false, "print docs/state-machine.md: the diagram, transitions, questions and tasks")
	out := fs.String("out", "", "write to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 || *mermaid == *markdown {
		fmt.Fprintln(stderr, "prmonitor fsm: choose exactly one of --mermaid or --markdown")
		return exitUsage
	}
	render := statemachine.Mermaid
	if *markdown {
		render = statemachine.Document
	}
	text, err := render()
	if err != nil {
		fmt.Fprintf(stderr, "prmonitor fsm: %v\n", err)
		return exitFailure
	}
	if *out == "" {
		fmt.Fprint(stdout, text)
		return exitOK
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		fmt.Fprintf(stderr, "prmonitor fsm: %v\n", err)
		return exitFailure
	}
	return exitOK
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// command describes one subcommand for its flag parsing and help.
type command struct {
	name     string // as typed: "check"
	synopsis string // the usage line after "usage: prmonitor "
	about    string // one paragraph printed by --help under the usage line
}

// parseFlags parses args with flags allowed before, between and after the positional arguments
// ("--" ends the flags). An error is reported on one stderr line; --help prints the command's
// help on stdout. When ok is false the command returns code at once.
func parseFlags(fs *flag.FlagSet, cmd command, args []string, e env) (positional []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, cmd, e.Stdout)
			return nil, exitOK, false
		}
		if err != nil {
			fmt.Fprintf(e.Stderr, "prmonitor %s: %s (see 'prmonitor %s --help')\n", cmd.name, oneLine(err.Error()), cmd.name)
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), exitOK, true
		}
		if len(rest) == 0 {
			return positional, exitOK, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func printHelp(fs *flag.FlagSet, cmd command, w io.Writer) {
	fmt.Fprintf(w, "usage: prmonitor %s\n\n%s\n", cmd.synopsis, cmd.about)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// command describes one subcommand for its flag parsing and help.
type command struct {
	name     string   // as typed: "check"
	synopsis string   // the main usage line after "usage: prmonitor "
	more     []string // other main forms, printed under the synopsis
	about    string   // one paragraph printed by --help under the usage lines
}

// forms are the command's usage lines: the synopsis, then the other forms.
func (c command) forms() []string { return append([]string{c.synopsis}, c.more...) }

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
			fmt.Fprintf(e.Stderr, "prmonitor %s: %s (see 'prmonitor %s --help')\n", cmd.name, sanitize.Line(flagError(err)), cmd.name)
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

// flagErrors rewrite the flag package's messages in the spelling the help uses (--name).
var flagErrors = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^flag provided but not defined: -+(.*)$`), "unknown flag --$1"},
	{regexp.MustCompile(`^flag needs an argument: -+(.*)$`), "--$1 needs a value"},
	{regexp.MustCompile(`^invalid boolean value (".*") for -+([^:]*): .*$`), "--$2 $1: want true or false"},
	{regexp.MustCompile(`^invalid value (".*") for flag -+([^:]*): (?:parse error|value out of range)$`), "--$2 $1: not a valid value"},
	{regexp.MustCompile(`^invalid value (".*") for flag -+([^:]*): (.*)$`), "--$2 $1: $3"},
}

func flagError(err error) string {
	msg := err.Error()
	for _, r := range flagErrors {
		if r.re.MatchString(msg) {
			return r.re.ReplaceAllString(msg, r.with)
		}
	}
	return msg
}

// parseNoArguments is parseFlags for a command that takes flags only: a positional argument is a
// usage error.
func parseNoArguments(fs *flag.FlagSet, cmd command, args []string, e env) (code int, ok bool) {
	rest, code, ok := parseFlags(fs, cmd, args, e)
	if !ok || len(rest) == 0 {
		return code, ok
	}
	fmt.Fprintf(e.Stderr, "prmonitor %s: takes no arguments, got %q (see 'prmonitor %s --help')\n", cmd.name, sanitize.Line(rest[0]), cmd.name)
	return exitUsage, false
}

// printHelp prints the command's usage lines, its paragraph, and its flags as fs defines them:
// the help is drawn from the flags the command parses, so the two cannot disagree.
func printHelp(fs *flag.FlagSet, cmd command, w io.Writer) {
	for i, f := range cmd.forms() {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(w, "%sprmonitor %s\n", lead, f)
	}
	fmt.Fprintf(w, "\n%s\n", cmd.about)
	if lines := flagLines(fs); len(lines) > 0 {
		fmt.Fprintf(w, "\nflags:\n%s", strings.Join(lines, ""))
	}
}

// flagLines describes each flag of fs, in name order, as the command line spells it: "--name
// ARG" on one line, its usage (and its default, when it has one) indented below.
func flagLines(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if arg != "" {
			head += " " + arg
		}
		text := strings.ReplaceAll(usage, "\n", "\n      ")
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && !strings.Contains(usage, "(default") {
			text += fmt.Sprintf(" (default %s)", d)
		}
		out = append(out, head+"\n      "+text+"\n")
	})
	return out
}

// durationFlag is a duration flag that must be more than zero when given: a zero or negative
// value is an error, never a silent default. Unset, it is the zero Duration (the command's own
// default applies) or the default it was registered with.
type durationFlag time.Duration

// newDurationFlag registers a duration flag on fs with default def (0: unset).
func newDurationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := durationFlag(def)
	fs.Var(&d, name, usage)
	return (*time.Duration)(&d)
}

func (d *durationFlag) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

// Set parses a Go duration ("90s", "2m", "1h30m") that is more than zero.
func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return errors.New("not a duration: write it as 90s, 2m or 1h30m")
	}
	if v <= 0 {
		return errors.New("a duration must be more than zero (leave the flag out for its default)")
	}
	*d = durationFlag(v)
	return nil
}

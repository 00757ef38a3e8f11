package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// options are the program's flags.
type options struct {
	namespace string
	retention time.Duration
	ready     time.Duration
	verbose   bool
	// dbFile is the SQLite file the state lives in ("" keeps it in memory); port the frontend's
	// port on loopback (0 takes a free one).
	dbFile string
	port   int
}

// parseFlags reads args; a bad flag is an error that says which, and the usage goes to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("temporaldev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.namespace, "namespace", "default", "the namespace to register")
	fs.DurationVar(&o.retention, "retention", 24*time.Hour, "how long closed workflows are kept")
	fs.DurationVar(&o.ready, "ready-within", 60*time.Second, "give up when the namespace is not usable by then")
	fs.BoolVar(&o.verbose, "verbose", false, "log the SDK client's messages and the server's warnings on stderr")
	fs.StringVar(&o.dbFile, "db-file", "", "keep the state in this SQLite file (created with its schema when missing, reused when there) instead of in memory")
	fs.IntVar(&o.port, "port", 0, "the frontend's port on 127.0.0.1 (0: a free one); with -db-file, start again on the same port to be the same server")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q (every setting is a flag)", fs.Args())
	}
	if o.port < 0 || o.port > 65535 {
		return options{}, fmt.Errorf("-port %d: want 0 (a free port) or 1-65535", o.port)
	}
	if o.namespace == "" {
		return options{}, errors.New("-namespace: empty")
	}
	if o.dbFile != "" {
		abs, err := filepath.Abs(o.dbFile)
		if err != nil {
			return options{}, fmt.Errorf("-db-file: %w", err)
		}
		o.dbFile = abs
	}
	return o, nil
}

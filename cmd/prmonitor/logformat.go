package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// --log-format: text for a person reading stderr, json for a log pipeline (one object a line, with
// slog's keys: time, level, msg and the record's attributes). Either way the logs go to stderr.

// logFormatFlag registers --log-format on fs.
func logFormatFlag(fs *flag.FlagSet) *string {
	return fs.String("log-format", "text", "the logs' `FORMAT` on stderr: text, or json (one object a line, for a log pipeline)")
}

// newLogger is a logger writing format to w at level.
func newLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", format)
}

package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// env is everything a command reads from or writes to the outside world. main passes the real
// process's; tests pass buffers, a fixed clock and fakes.
type env struct {
	Stdin  io.Reader
	Stdout io.Writer // the command's output, and nothing else
	Stderr io.Writer // errors and logs
	Getenv func(string) string
	// RunCommand runs an external program (`gh auth token`); nil skips the gh fallback.
	RunCommand ghclient.CommandRunner
	// Now is the wall clock (nil: time.Now).
	Now func() time.Time
	// Sleep waits between retries of a GitHub request and returns early when ctx is done (nil: a
	// timer).
	Sleep func(ctx context.Context, d time.Duration) error
	// Transport is the HTTP transport under the GitHub client (nil: a clone of the default one).
	Transport http.RoundTripper
	// Executable is where the running binary is (nil: unknown).
	Executable func() (string, error)
}

// osEnv is the real process's environment.
func osEnv() env {
	return env{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		RunCommand: ghclient.ExecCommand,
		Executable: os.Executable,
	}
}

// withDefaults fills the fields a test may leave out.
func (e env) withDefaults() env {
	if e.Stdin == nil {
		e.Stdin = eofReader{}
	}
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Executable == nil {
		e.Executable = func() (string, error) { return "", errors.New("where this binary is is not known") }
	}
	return e
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

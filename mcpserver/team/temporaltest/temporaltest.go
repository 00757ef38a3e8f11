// Package temporaltest starts a real Temporal server for tests: the developer-tools module's
// tools/temporaldev (go.temporal.io/server's lite server, SQLite in memory, loopback), built once
// and cached, run as a child process per test, stopped at the test's cleanup. The product module
// never imports go.temporal.io/server; tests talk to the server over gRPC like the worker does.
//
// Tests that use it skip under -short, and skip (saying what to run) when no binary is named:
// PRMONITOR_TEMPORAL_DEV names it. The team tier's runner, `go run -C tools ./teamtier`, builds it
// once into the user's cache directory, sets the variable and runs the tests that need it; a test
// never builds the server itself (docs/deploy.md#the-tests).
package temporaltest

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// EnvBinary names a prebuilt tools/temporaldev binary to run instead of building one.
const EnvBinary = "PRMONITOR_TEMPORAL_DEV"

// readyWithin bounds the server's start (it takes a few seconds on a busy 2-core machine).
const readyWithin = 2 * time.Minute

// Server is a running dev server.
type Server struct {
	// HostPort is the frontend's address (127.0.0.1:PORT), Namespace the registered namespace.
	HostPort  string
	Namespace string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr string // the server's log file
	// exited is closed when the process has ended; waitErr is then what Wait said.
	exited  chan struct{}
	waitErr error
}

// Start runs a dev server for t with namespace ns ("default" when empty) and stops it when t
// ends. It skips t under -short.
func Start(t testing.TB, ns string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real Temporal server: not under -short")
	}
	if ns == "" {
		ns = "default"
	}
	bin := Binary(t)
	s, err := start(bin, ns, t.TempDir())
	if err != nil {
		t.Fatalf("temporaltest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("temporaltest: %v", err)
		}
	})
	return s
}

// Client dials the server in its namespace (the client's own log lines dropped: a test reads what
// it asserts); the client is closed when t ends.
func (s *Server) Client(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.HostPort, Namespace: s.Namespace, Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatalf("temporaltest: dial %s: %v", s.HostPort, err)
	}
	t.Cleanup(c.Close)
	return c
}

func start(bin, ns, dir string) (*Server, error) {
	logFile, err := os.Create(filepath.Join(dir, "temporaldev.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin, "-namespace", ns)
	cmd.Stderr = logFile
	cmd.SysProcAttr = DieWithParent() // and stdin closing ends it anywhere
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, stdin: stdin, stderr: logFile.Name(), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	timer := time.NewTimer(readyWithin)
	defer timer.Stop()
	select {
	case line := <-lines:
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "ready" {
			_ = s.Stop()
			return nil, fmt.Errorf("dev server said %q, want \"ready ADDR NAMESPACE\"; stderr: %s", line, s.log())
		}
		s.HostPort, s.Namespace = f[1], f[2]
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("dev server exited before it was ready (%v); stderr: %s", s.waitErr, s.log())
	case <-timer.C:
		_ = s.Stop()
		return nil, fmt.Errorf("dev server not ready within %s; stderr: %s", readyWithin, s.log())
	}
}

// Stop ends the server (stdin closed, then SIGTERM; SIGKILL if it lingers) and waits for it. A
// second Stop finds it ended.
func (s *Server) Stop() error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	_ = s.stdin.Close()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("dev server ignored SIGTERM for 30s and was killed; stderr: %s", s.log())
	}
}

// log is the tail of the server's stderr, for error messages.
func (s *Server) log() string {
	b, err := os.ReadFile(s.stderr)
	if err != nil {
		return err.Error()
	}
	if len(b) > 2000 {
		b = append([]byte("…"), b[len(b)-2000:]...)
	}
	return string(b)
}

// Package temporaltest starts a real Temporal server for tests: the developer-tools module's
// tools/temporaldev (go.temporal.io/server's lite server, SQLite in memory, loopback), built once
// and cached, run as a child process per test, stopped at the test's cleanup. A persistent server
// (StartWith, Options.Persistent) keeps its state in a SQLite file on a fixed port and can be
// stopped and started again as the same server (Restart), as a production server restarts. The
// product module never imports go.temporal.io/server; tests talk to the server over gRPC like the
// worker does.
//
// Tests that use it skip under -short, and skip (saying what to run) when no binary is named:
// PRMONITOR_TEMPORAL_DEV names it. The team tier's runner, `go run -C tools ./teamtier`, builds it
// once into the user's cache directory, sets the variable and runs the tests that need it; a test
// never builds the server itself (docs/deploy.md#the-tests).
package temporaltest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// Both stay the same across Restart.
	HostPort  string
	Namespace string

	bin  string
	args []string // the program's flags: a restarted server gets the same
	log  string   // the server's stderr, every run of it appended

	mu sync.Mutex
	p  *proc // the last process started
}

// proc is one run of the dev server's process.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// exited is closed when the process has ended; waitErr is then what Wait said.
	exited  chan struct{}
	waitErr error
}

// Options say how a server is started.
type Options struct {
	// Namespace is the namespace registered ("default" when empty).
	Namespace string
	// Persistent keeps the state in a SQLite file in the test's temporary directory and puts the
	// frontend on a fixed loopback port, so Restart brings back the same server: same address,
	// same workflows and timers. Otherwise the state lives in memory and Restart is refused.
	Persistent bool
}

// Start runs a dev server for t with namespace ns ("default" when empty) and stops it when t
// ends. It skips t under -short.
func Start(t testing.TB, ns string) *Server {
	t.Helper()
	return StartWith(t, Options{Namespace: ns})
}

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real Temporal server: not under -short")
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	bin := Binary(t)
	dir := t.TempDir()
	s := &Server{bin: bin, Namespace: o.Namespace, log: filepath.Join(dir, "temporaldev.log"), args: []string{"-namespace", o.Namespace}}
	if o.Persistent {
		port, err := freePort()
		if err != nil {
			t.Fatalf("temporaltest: %v", err)
		}
		s.args = append(s.args, "-db-file", filepath.Join(dir, "temporal.db"), "-port", strconv.Itoa(port))
	}
	if err := s.start(); err != nil {
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

// Restart starts a stopped server again (stopping it first when it runs) on the same database
// file and port: what it held is there again, at the same address. Only a Persistent server
// restarts.
func (s *Server) Restart() error {
	if !slices.Contains(s.args, "-db-file") {
		return errors.New("restart: the server keeps its state in memory (start it with Options.Persistent)")
	}
	if err := s.Stop(); err != nil {
		return err
	}
	return s.start()
}

// Running reports whether the server's process runs.
func (s *Server) Running() bool {
	p := s.proc()
	if p == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (s *Server) proc() *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs the program with s.args and waits for its ready line.
func (s *Server) start() error {
	logFile, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stderr = logFile
	cmd.SysProcAttr = DieWithParent() // and stdin closing ends it anywhere
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p := &proc{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	timer := time.NewTimer(readyWithin)
	defer timer.Stop()
	select {
	case line := <-lines:
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "ready" {
			_ = s.Stop()
			return fmt.Errorf("dev server said %q, want \"ready ADDR NAMESPACE\"; stderr: %s", line, s.tail())
		}
		if s.HostPort != "" && f[1] != s.HostPort {
			_ = s.Stop()
			return fmt.Errorf("the restarted dev server listens on %s, not %s", f[1], s.HostPort)
		}
		s.HostPort, s.Namespace = f[1], f[2]
		return nil
	case <-p.exited:
		return fmt.Errorf("dev server exited before it was ready (%v); stderr: %s", p.waitErr, s.tail())
	case <-timer.C:
		_ = s.Stop()
		return fmt.Errorf("dev server not ready within %s; stderr: %s", readyWithin, s.tail())
	}
}

// Stop ends the server (stdin closed, then SIGTERM; SIGKILL if it lingers) and waits for it. A
// second Stop finds it ended.
func (s *Server) Stop() error {
	p := s.proc()
	if p == nil {
		return nil
	}
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.stdin.Close()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("dev server ignored SIGTERM for 30s and was killed; stderr: %s", s.tail())
	}
}

// tail is the end of the server's stderr, for error messages.
func (s *Server) tail() string {
	b, err := os.ReadFile(s.log)
	if err != nil {
		return err.Error()
	}
	if len(b) > 2000 {
		b = append([]byte("…"), b[len(b)-2000:]...)
	}
	return string(b)
}

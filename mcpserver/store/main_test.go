package store_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// The test binary doubles as a second process holding a claim (see startHolder).
const (
	helperEnv   = "PRMONITOR_STORE_TEST_HOLDER"
	helperDir   = "PRMONITOR_STORE_TEST_DIR"
	helperID    = "PRMONITOR_STORE_TEST_ID"
	helperReady = "claimed"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(holdClaim())
	}
	goleak.VerifyTestMain(m)
}

// holdClaim claims a monitor, says so on stdout, and holds it until stdin closes.
func holdClaim() int {
	st, err := store.Open(os.Getenv(helperDir), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := st.Claim(os.Getenv(helperID))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	fmt.Println(helperReady)
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := c.Release(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	return 0
}

// holder is a child process holding a claim.
type holder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *bytes.Buffer
}

// startHolder starts a child process that claims id in dir, and waits until it has.
func startHolder(t *testing.T, dir, id string) *holder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperDir+"="+dir, helperID+"="+id)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	h := &holder{cmd: cmd, stdin: stdin, stderr: &bytes.Buffer{}}
	cmd.Stderr = h.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = h.stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "holder: %s", h.stderr)
	require.Equal(t, helperReady, strings.TrimSpace(line))
	return h
}

func (h *holder) pid() int { return h.cmd.Process.Pid }

// exit lets the holder release its claim and exit.
func (h *holder) exit(t *testing.T) {
	t.Helper()
	require.NoError(t, h.stdin.Close())
	require.NoError(t, h.cmd.Wait(), "holder: %s", h.stderr)
}

// kill ends the holder without releasing anything, as a crash would.
func (h *holder) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, h.cmd.Process.Kill())
	_ = h.cmd.Wait()
}

// t0 is when every test's clock starts.
var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// logs collects a store's log lines.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.Write(p) }
func (l *logs) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

// fixture is a store in a temporary directory, with its clock and logs.
type fixture struct {
	*store.Store
	dir   string
	clock *clock
	logs  *logs
}

func newFixture(t *testing.T, opts ...store.Option) *fixture {
	t.Helper()
	return openFixture(t, t.TempDir(), opts...)
}

func openFixture(t *testing.T, dir string, opts ...store.Option) *fixture {
	t.Helper()
	f := &fixture{dir: dir, clock: &clock{now: t0}, logs: &logs{}}
	st, err := store.Open(dir, slog.New(slog.NewTextHandler(f.logs, nil)), append([]store.Option{store.WithNow(f.clock.Now)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	f.Store = st
	return f
}

// claim claims id or fails the test.
func (f *fixture) claim(t *testing.T, id string) *store.Claim {
	t.Helper()
	c, err := f.Claim(id)
	require.NoError(t, err)
	return c
}

// files lists the directory's file names.
func (f *fixture) files(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(f.dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// filesWith lists the directory's file names that contain part.
func (f *fixture) filesWith(t *testing.T, part string) []string {
	t.Helper()
	var out []string
	for _, n := range f.files(t) {
		if strings.Contains(n, part) {
			out = append(out, n)
		}
	}
	return out
}

// Package teamtest holds what the team deployment's tests share: the built prmonitor binary, its
// processes, signed webhook deliveries, the bearer token an agent sends, and a tool call that
// waits in the background while the test watches its monitor. It is imported by tests only.
package teamtest

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
)

// Bearer adds an Authorization: Bearer header to every request.
type Bearer struct {
	Token string
	Next  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// HTTPClient is a client that sends token as a bearer token.
func HTTPClient(token string) *http.Client { return &http.Client{Transport: Bearer{Token: token}} }

// built is the prmonitor binary built once per test process, without the race detector (the
// load tests measure the worker, not the detector), in a directory Main removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func build() (string, error) {
	built.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "prmonitor-team-"); err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(built.dir, "prmonitor")
		cmd := exec.Command("go", "build", "-C", root, "-tags", "team", "-o", built.bin, "./cmd/prmonitor")
		cmd.SysProcAttr = temporaltest.DieWithParent()
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build prmonitor: %w\n%s", err, out)
		}
	})
	return built.bin, built.err
}

// Binary is the built prmonitor.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := build()
	require.NoError(t, err)
	return bin
}

// Main runs a package's tests and then removes the binary Binary built, so a test run leaves no
// file behind. A package that calls Binary calls it from TestMain: os.Exit(teamtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	return code
}

// moduleRoot is the directory of the product's go.mod, above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "cmd", "prmonitor")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cmd/prmonitor not found above the working directory")
		}
		dir = parent
	}
}

// Proc is one running prmonitor process.
type Proc struct {
	// Addr is what the ready line's addr= said.
	Addr string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

// Start runs bin with args and env and waits for the stderr line ready matches; its first group is
// the process's address. The process gets SIGTERM when t ends.
func Start(t testing.TB, bin string, env []string, ready *regexp.Regexp, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = temporaltest.DieWithParent()
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			p.mu.Unlock()
			if m := ready.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.Signal(syscall.SIGTERM) })
	select {
	case p.Addr = <-addr:
	case <-p.done:
		t.Fatalf("prmonitor %s exited: %s", args[0], p.Stderr())
	case <-time.After(time.Minute):
		t.Fatalf("prmonitor %s never got ready: %s", args[0], p.Stderr())
	}
	return p
}

// Stderr is what the process logged so far.
func (p *Proc) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.log.String() }

// Signal sends sig and waits for the process to end (SIGKILL after 30 s).
func (p *Proc) Signal(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// RSS is the process's resident memory in KiB (Linux; 0 elsewhere).
func (p *Proc) RSS() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// Deliver posts a webhook delivery to http://addr/webhook, signed with key as GitHub signs it
// (X-Hub-Signature-256), and returns the answer's status.
func Deliver(t testing.TB, addr, event, id, body string, key []byte) int {
	t.Helper()
	status, _ := DeliverAnswer(t, addr, event, id, body, key)
	return status
}

// DeliverAnswer is Deliver that also returns the receiver's outcome (its X-Prmonitor-Outcome).
func DeliverAnswer(t testing.TB, addr, event, id, body string, key []byte) (int, string) {
	t.Helper()
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(body))
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Prmonitor-Outcome")
}

// UserID is the GitHub user id the tests give login (in UsersFile): a number fixed by the login.
func UserID(login string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(login)))
	return 1_000_000 + int64(h.Sum32()%1_000_000_000)
}

// UsersFile is a tokens file (LOGIN SHA256HEX GITHUB_USER_ID per line) for the users and bearer
// tokens given, each user with the id UserID gives them.
func UsersFile(tokens map[string]string) string {
	names := make([]string, 0, len(tokens))
	for u := range tokens {
		names = append(names, u)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, u := range names {
		h := sha256.Sum256([]byte(tokens[u]))
		fmt.Fprintf(&b, "%s %s %d\n", u, hex.EncodeToString(h[:]), UserID(u))
	}
	return b.String()
}

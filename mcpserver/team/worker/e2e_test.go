package worker_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

const (
	token  = "ghp_TEAMWORKERE2ESECRET0123456789abcdef"
	secret = "webhook-secret-for-e2e"
)

var ref = prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}

// buildBinary builds prmonitor once for the test binary.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "prmonitor-worker-e2e-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "prmonitor")
	out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/prmonitor").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build prmonitor: %w\n%s", err, out)
	}
	return bin, nil
})

// e2e is the built binary's worker against a real Temporal server and the fake GitHub.
type e2e struct {
	t      *testing.T
	srv    *temporaltest.Server
	c      client.Client
	fake   *githubfake.Fake
	bin    string
	secret string
	queue  string
}

func newE2E(t *testing.T) *e2e {
	if testing.Short() {
		t.Skip("end-to-end (the built binary, a real Temporal server): runs without -short")
	}
	srv := temporaltest.Start(t, "")
	bin, err := buildBinary()
	require.NoError(t, err)
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(token), githubfake.WithRateLimit(1<<30))
	fake.Start()
	t.Cleanup(fake.Close)
	require.NoError(t, fake.Apply(githubfake.Ref(ref), githubfake.OpenPR{Title: "Add retries"}))
	file := filepath.Join(t.TempDir(), "webhook-secret")
	require.NoError(t, os.WriteFile(file, []byte(secret+"\n"), 0o600))
	return &e2e{t: t, srv: srv, c: srv.Client(t), fake: fake, bin: bin, secret: file, queue: "e2e"}
}

// workerProc is one running `prmonitor worker`.
type workerProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *bytes.Buffer
	mu     *sync.Mutex
	done   chan struct{}
}

var listening = regexp.MustCompile(`msg="webhook listening" addr=(\S+)`)

// startWorker runs the worker and waits until its webhook listens.
func (e *e2e) startWorker() *workerProc {
	e.t.Helper()
	cmd := exec.Command(e.bin, "worker", "--temporal", e.srv.HostPort, "--namespace", e.srv.Namespace, "--task-queue", e.queue,
		"--github-url", e.fake.URL(), "--webhook-listen", "127.0.0.1:0", "--webhook-secret-file", e.secret)
	cmd.Env = []string{"GITHUB_TOKEN=" + token, "HOME=" + e.t.TempDir(), "PATH=/usr/bin:/bin"}
	pipe, err := cmd.StderrPipe()
	require.NoError(e.t, err)
	require.NoError(e.t, cmd.Start())
	p := &workerProc{cmd: cmd, stderr: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := listening.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(func() { p.kill(syscall.SIGTERM) })
	select {
	case p.addr = <-addr:
	case <-p.done:
		e.t.Fatalf("the worker exited: %s", p.log())
	case <-time.After(time.Minute):
		e.t.Fatalf("the worker's webhook never listened: %s", p.log())
	}
	return p
}

func (p *workerProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *workerProc) kill(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// deliver posts a delivery to the worker's webhook, signed with key, and returns the status.
func (e *e2e) deliver(p *workerProc, event, id, body string, key []byte) int {
	e.t.Helper()
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(body))
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/webhook", strings.NewReader(body))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func prPayload(number int, action string) string {
	return fmt.Sprintf(`{"action":%q,"pull_request":{"number":%d,"author_association":"MEMBER"},"repository":{"name":"widgets","owner":{"login":"acme"}}}`, action, number)
}

// eventually polls the monitor's status until ok says so.
func (e *e2e) eventually(id string, ok func(monitorwf.Status) bool, what string) monitorwf.Status {
	e.t.Helper()
	var st monitorwf.Status
	var err error
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err = monitorwf.QueryMonitor(ctx, e.c, id)
		cancel()
		if err == nil && ok(st) {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("%s: last status %+v, err %v", what, st, err)
	return st
}

func TestASignedWebhookStartsAMonitorThatReadsTheFakeAndABadSignatureSignalsNothing(t *testing.T) {
	e := newE2E(t)
	w := e.startWorker()
	id := monitorwf.WorkflowID(ref)

	assert.Equal(t, http.StatusUnauthorized, e.deliver(w, "pull_request", "bad-1", prPayload(8, "opened"), []byte("not the secret")))
	assert.Equal(t, http.StatusAccepted, e.deliver(w, "pull_request", "good-1", prPayload(7, "opened"), []byte(secret)))

	st := e.eventually(id, func(s monitorwf.Status) bool { return !s.LastRead.IsZero() }, "the monitor reads the pull request")
	assert.Equal(t, statemachine.StatePolling, st.State)
	assert.Equal(t, "Add retries", string(st.Title))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := e.c.DescribeWorkflow(ctx, monitorwf.WorkflowID(prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}), "")
	var notFound *serviceerror.NotFound
	assert.ErrorAs(t, err, &notFound, "the badly signed delivery started no monitor")
	assert.NotContains(t, w.log(), token, "the token is in no log line")
}

func TestAWorkerKilledMidFlowIsReplacedAndTheMonitorResumesWhereItWas(t *testing.T) {
	e := newE2E(t)
	first := e.startWorker()
	id := monitorwf.WorkflowID(ref)
	require.Equal(t, http.StatusAccepted, e.deliver(first, "pull_request", "d1", prPayload(7, "opened"), []byte(secret)))
	e.eventually(id, func(s monitorwf.Status) bool { return !s.LastRead.IsZero() }, "the first worker's monitor reads")

	first.kill(syscall.SIGKILL)
	e.fake.Advance(10 * time.Minute) // the review comes after the head commit, on GitHub's clock
	require.NoError(t, e.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("bob"), "Please rework the retries.")))
	second := e.startWorker()
	require.Equal(t, http.StatusAccepted, e.deliver(second, "pull_request_review", "d2",
		strings.Replace(prPayload(7, "submitted"), `"pull_request"`, `"review":{"state":"changes_requested"},"pull_request"`, 1), []byte(secret)))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := monitorwf.NextStep(ctx, e.c, id, monitorwf.NextStepRequest{Event: statemachine.EventReady, Wait: 45 * time.Second})
	require.NoError(t, err)
	st, err := monitorwf.QueryMonitor(ctx, e.c, id)
	require.NoError(t, err)
	assert.Equal(t, statemachine.TaskRefine, r.Action.Task, "the second worker carried the same monitor on to the review: %+v\n%s", st, second.log())
	assert.Equal(t, 2, st.ChangesSeen, "one run: the opening and the review, across the two workers")
}

func TestTheWorkerDoesTheMachinesGitHubWorkThroughTheEffectsPackage(t *testing.T) {
	e := newE2E(t)
	w := e.startWorker()
	id := monitorwf.WorkflowID(ref)
	e.fake.Advance(10 * time.Minute)
	require.NoError(t, e.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("bob"), "Please rework the retries.")))
	require.Equal(t, http.StatusAccepted, e.deliver(w, "pull_request_review", "r1", prPayload(7, "submitted"), []byte(secret)))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := monitorwf.NextStep(ctx, e.c, id, monitorwf.NextStepRequest{Event: statemachine.EventReady, Wait: 45 * time.Second})
	require.NoError(t, err)
	require.Equal(t, statemachine.TaskRefine, r.Action.Task)

	e.fake.Advance(10 * time.Minute)
	require.NoError(t, e.fake.Apply(githubfake.Ref(ref), githubfake.Push{Commits: githubfake.Commits(1, "fix")}))
	// Nothing comes for the agent after the push (the machine asks bob, then watches): the Update
	// answers polling when its wait ends, by which time the work is long done.
	r, err = monitorwf.NextStep(ctx, e.c, id, monitorwf.NextStepRequest{Event: statemachine.EventPushCompleted, Wait: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, statemachine.ActionPolling, r.Action.Kind, "%+v", r.Action)

	gh, err := ghclient.New(ghclient.Config{RESTURL: e.fake.URL(), Token: ghclient.NewToken(token)})
	require.NoError(t, err)
	snap, err := gh.Snapshot(ctx, ref)
	require.NoError(t, err)
	assert.Contains(t, snap.ReviewRequests, "bob", "the worker asked bob to review again, through mcpserver/effects")
}

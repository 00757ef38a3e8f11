package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/ops"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var (
	metricsAddrText = regexp.MustCompile(`msg="metrics listening" addr=(\S+)`)
	metricsAddrJSON = regexp.MustCompile(`"msg":"metrics listening","addr":"([^"]+)"`)
	serveReadyJSON  = regexp.MustCompile(`"msg":"prmonitor HTTP front end listening","addr":"([^"]+)"`)
)

// logged waits for the line re matches in p's log and returns its first group.
func (d *deployment) logged(p *teamtest.Proc, re *regexp.Regexp) string {
	d.t.Helper()
	var got string
	d.eventually(30*time.Second, func() bool {
		m := re.FindStringSubmatch(p.Stderr())
		if m != nil {
			got = m[1]
		}
		return m != nil
	}, "the process logs "+re.String(), p.Stderr)
	return got
}

// series are the metric names of a /metrics page (a histogram's by its own name) with their lines.
func series(page string) map[string][]string {
	out := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(page))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			name = strings.TrimSuffix(name, suffix)
		}
		out[name] = append(out[name], line)
	}
	return out
}

// The worker and the front end, run as an operator runs them (--metrics-listen; the front end's
// logs as JSON), after a delivery that reaches a waiting agent: every series the dashboard in
// docs/ queries is on one of their /metrics pages, Temporal's SDK's included; the token appears
// by its short id only; liveness and readiness answer apart; and the front end, told to stop while
// a call waits, answers the call before it exits.
func TestTheDashboardsSeriesComeFromARunningDeploymentAndItStopsWithoutCuttingACall(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	w := d.worker("--metrics-listen", "127.0.0.1:0")
	workerMetrics := d.logged(w, metricsAddrText)
	front := d.run(serveReadyJSON, "serve", "--http", "127.0.0.1:0", "--temporal", d.srv.HostPort, "--namespace", d.srv.Namespace,
		"--task-queue", d.queue, "--auth-tokens", filepath.Join(d.dir, "tokens"), "--metrics-listen", "127.0.0.1:0", "--log-format", "json")
	frontMetrics := d.logged(front, metricsAddrJSON)

	alice := d.agent(front, "alice", "2025-11-25")
	alice.call("pr_monitor_start", map[string]any{"pr": "https://github.com/acme/widgets/pull/7"})

	// A call waiting for news when a front end is told to stop gets its answer before it exits.
	other := d.serve()
	waiting := d.agent(other, "alice", "2025-11-25")
	pending := waiting.callLater("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	d.callWaits(ref) // nothing has changed on the pull request: the call waits
	other.Signal(syscall.SIGTERM)
	got := <-pending
	require.NoError(t, got.Err, "the waiting call got an answer, not a broken connection")
	assert.False(t, got.Result.IsError, "%v", got.Result.Content)
	go func() { // whether next_step waits yet or not: the monitor holds the news for it
		d.fake.Advance(10 * time.Minute)
		_ = d.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries."))
		d.deliver(w, "pull_request_review", "m-1", prEvent("pull_request_review", "submitted", ref, "alice"), []byte(secret))
	}()
	task := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.Equal(t, "execute", task["action"], "%v", task)

	var pages map[string]map[string][]string
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "grafana-dashboard.json"))
	require.NoError(t, err)
	queried, err := ops.QueriedMetrics(b)
	require.NoError(t, err)
	d.eventually(60*time.Second, func() bool {
		pages = map[string]map[string][]string{}
		for name, addr := range map[string]string{"worker": workerMetrics, "front": frontMetrics} {
			resp, body := get(t, http.MethodGet, addr, "/metrics", "")
			if resp.StatusCode != http.StatusOK {
				return false
			}
			pages[name] = series(body)
		}
		for _, name := range queried {
			if pages["worker"][name] == nil && pages["front"][name] == nil {
				return false
			}
		}
		return true
	}, "every series the dashboard queries is exported", func() string {
		var missing []string
		for _, name := range queried {
			if pages["worker"][name] == nil && pages["front"][name] == nil {
				missing = append(missing, name)
			}
		}
		return "missing: " + strings.Join(missing, ", ")
	})

	id := ghclient.NewToken(ghToken).ShortID()
	assert.Contains(t, strings.Join(pages["worker"][ops.MetricPointsRemaining], "\n"), `token="`+id+`"`)
	assert.Contains(t, strings.Join(pages["worker"][ops.MetricWebhook], "\n"), `event="pull_request_review",result="signalled"`)
	assert.Contains(t, strings.Join(pages["front"][ops.MetricHTTPRequests], "\n"), `route="/mcp"`)
	for name, addr := range map[string]string{"worker": workerMetrics, "front": frontMetrics} {
		_, body := get(t, http.MethodGet, addr, "/metrics", "")
		for what, s := range map[string]string{"the GitHub token": ghToken, "the webhook's secret": secret, "alice's bearer token": tokens["alice"]} {
			assert.NotContains(t, body, s, "%s is not on the %s's /metrics", what, name)
		}
	}
	for _, addr := range []string{w.Addr, workerMetrics, front.Addr, frontMetrics} {
		for _, path := range []string{"/livez", "/readyz", "/healthz"} {
			resp, body := get(t, http.MethodGet, addr, path, "")
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s%s: %s", addr, path, body)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(front.Stderr()), "\n") {
		assert.True(t, json.Valid([]byte(line)), "--log-format json: every line an object: %q", line)
	}

}

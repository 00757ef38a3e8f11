package effects

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// workGitHub records the GitHub work the executor asks for and fails what fail names.
type workGitHub struct {
	GitHub
	calls []string
	fail  map[string]error
	logs  map[int64]ghclient.LogTail
}

func (g *workGitHub) did(call string) error {
	g.calls = append(g.calls, call)
	return g.fail[call]
}

func (g *workGitHub) HeadSHA(context.Context, prstatus.PRRef) (string, error) {
	return "c2", g.did("head")
}

func (g *workGitHub) PostReply(_ context.Context, _ prstatus.PRRef, r ghclient.ReplyRequest) (ghclient.ReplyResult, error) {
	return ghclient.ReplyResult{}, g.did(fmt.Sprintf("reply %s/%d %q %s", r.ThreadID, r.ReplyToID, r.Body, r.Marker.Kind))
}

func (g *workGitHub) ResolveThread(_ context.Context, id string) error { return g.did("resolve " + id) }

func (g *workGitHub) RequestReviews(_ context.Context, _ prstatus.PRRef, who []string) error {
	return g.did(fmt.Sprint("review ", who))
}

func (g *workGitHub) RerunFailedJobs(_ context.Context, _ prstatus.PRRef, run int64) error {
	return g.did(fmt.Sprint("rerun-failed ", run))
}

func (g *workGitHub) RerunWorkflow(_ context.Context, _ prstatus.PRRef, run int64) error {
	return g.did(fmt.Sprint("rerun-all ", run))
}

func (g *workGitHub) UpdateBranch(_ context.Context, _ prstatus.PRRef, sha string) error {
	return g.did("update " + sha)
}

func (g *workGitHub) JobLogTail(_ context.Context, _ prstatus.PRRef, job int64, max int) (ghclient.LogTail, error) {
	if max != MaxLogBytes {
		return ghclient.LogTail{}, fmt.Errorf("asked for %d bytes", max)
	}
	return g.logs[job], g.did(fmt.Sprint("log ", job))
}

// TestTheExecutorDoesEachPieceOfGitHubWorkAndReportsItsOutcome: every server action the machine
// asks for becomes exactly the GitHub calls it names, and a failure becomes the outcome's error.
func TestTheExecutorDoesEachPieceOfGitHubWorkAndReportsItsOutcome(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	boom := errors.New("HTTP 502\nretry later")
	tests := []struct {
		name    string
		req     statemachine.ServerRequest
		fail    map[string]error
		calls   []string
		wantOK  bool
		wantErr string
	}{
		{name: "post a reply", req: statemachine.ServerRequest{Kind: statemachine.ServerPostReply, ThreadID: "T1", ReplyToID: 41, Body: "Done.",
			Marker: prstatus.Marker{Kind: prstatus.ReplyAddressed}}, calls: []string{`reply T1/41 "Done." addressed`}, wantOK: true},
		{name: "a reply that fails", req: statemachine.ServerRequest{Kind: statemachine.ServerPostReply, ThreadID: "T1", ReplyToID: 41, Body: "Done."},
			fail: map[string]error{`reply T1/41 "Done." `: boom}, calls: []string{`reply T1/41 "Done." `}, wantErr: "HTTP 502 retry later"},
		{name: "resolve a thread", req: statemachine.ServerRequest{Kind: statemachine.ServerResolveThread, ThreadID: "T1"}, calls: []string{"resolve T1"}, wantOK: true},
		{name: "request reviews", req: statemachine.ServerRequest{Kind: statemachine.ServerRequestReview, Reviewers: []string{"bob", "eve"}}, calls: []string{"review [bob eve]"}, wantOK: true},
		{name: "re-run the failed jobs of each run", req: statemachine.ServerRequest{Kind: statemachine.ServerRerunFailed, RunIDs: []int64{100, 101}},
			calls: []string{"rerun-failed 100", "rerun-failed 101"}, wantOK: true},
		{name: "re-run every workflow", req: statemachine.ServerRequest{Kind: statemachine.ServerRerunAll, RunIDs: []int64{100}},
			calls: []string{"rerun-all 100"}, wantOK: true},
		{name: "one run of two cannot re-run: the other still is, the failure is named", req: statemachine.ServerRequest{Kind: statemachine.ServerRerunFailed, RunIDs: []int64{100, 101}},
			fail: map[string]error{"rerun-failed 100": boom}, calls: []string{"rerun-failed 100", "rerun-failed 101"}, wantErr: "run 100: HTTP 502 retry later"},
		{name: "an unknown action", req: statemachine.ServerRequest{Kind: "frobnicate"}, wantErr: `unknown server action "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &workGitHub{fail: tt.fail}
			in := execute(t.Context(), g, work(ref, tt.req))
			require.NotNil(t, in.Outcome)
			assert.Equal(t, tt.calls, g.calls)
			assert.Equal(t, tt.req.Kind, in.Outcome.Kind)
			assert.Equal(t, tt.wantOK, in.Outcome.OK)
			assert.Equal(t, tt.wantErr, in.Outcome.Error)
		})
	}
}

func TestTheExecutorReReadsTheHead(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	in := execute(t.Context(), &workGitHub{}, work(ref, statemachine.ServerRequest{Kind: statemachine.ServerFetchHead}))
	require.NotNil(t, in.Head)
	assert.Equal(t, statemachine.HeadRefresh{OK: true, SHA: "c2"}, *in.Head)

	in = execute(t.Context(), &workGitHub{fail: map[string]error{"head": errors.New("unreachable")}}, work(ref, statemachine.ServerRequest{Kind: statemachine.ServerFetchHead}))
	require.NotNil(t, in.Head)
	assert.Equal(t, statemachine.HeadRefresh{Error: "unreachable"}, *in.Head)
}

// TestFailingLogsAreFetchedOncePerJob: one tail per job (a job listed twice is fetched once, a
// check without a job is skipped), a log that cannot be fetched is reported in its place, and only
// when none could be fetched is the step a failure.
func TestFailingLogsAreFetchedOncePerJob(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	checks := []prstatus.CheckFact{{Name: "test", JobID: 11}, {Name: "lint", JobID: 12}, {Name: "test (retry)", JobID: 11}, {Name: "legacy status"}}
	logs := map[int64]ghclient.LogTail{11: {Text: "--- FAIL: TestX", Truncated: true}, 12: {Text: "lint: ok"}}
	req := statemachine.ServerRequest{Kind: statemachine.ServerFetchCILogs, Checks: checks}

	g := &workGitHub{logs: logs}
	in := execute(t.Context(), g, work(ref, req))
	assert.Equal(t, []string{"log 11", "log 12"}, g.calls)
	require.True(t, in.Outcome.OK, in.Outcome.Error)
	assert.Equal(t, []statemachine.CheckLog{
		{Check: "test", JobID: 11, Tail: statemachine.Untrusted("--- FAIL: TestX"), Truncated: true},
		{Check: "lint", JobID: 12, Tail: statemachine.Untrusted("lint: ok")},
	}, in.Outcome.Logs)

	g = &workGitHub{logs: logs, fail: map[string]error{"log 12": errors.New("410 gone")}}
	in = execute(t.Context(), g, work(ref, req))
	require.True(t, in.Outcome.OK, "one log is enough to go on")
	require.Len(t, in.Outcome.Logs, 2)
	assert.Equal(t, "410 gone", in.Outcome.Logs[1].Error)
	assert.Empty(t, in.Outcome.Logs[1].Tail)

	g = &workGitHub{logs: logs, fail: map[string]error{"log 11": errors.New("410 gone"), "log 12": errors.New("expired")}}
	in = execute(t.Context(), g, work(ref, req))
	assert.False(t, in.Outcome.OK)
	assert.Equal(t, "no log could be fetched (410 gone)", in.Outcome.Error)
	assert.Len(t, in.Outcome.Logs, 2, "what failed is still reported")

	g = &workGitHub{}
	in = execute(t.Context(), g, work(ref, statemachine.ServerRequest{Kind: statemachine.ServerFetchCILogs, Checks: []prstatus.CheckFact{{Name: "legacy status"}}}))
	assert.True(t, in.Outcome.OK, "no job to fetch a log for is not a failure")
	assert.Empty(t, in.Outcome.Logs)
	assert.Empty(t, g.calls)
}

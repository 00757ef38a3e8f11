package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// openViewerPRs opens, for the viewer "dev": two ordinary pull requests, a draft, a Dependabot
// update, one of alice's assigned to dev and one of alice's awaiting dev's review.
func openViewerPRs(t *testing.T, h *harness) {
	t.Helper()
	dev := githubfake.User("dev")
	alice := githubfake.User("alice")
	for _, pr := range []struct {
		n      int
		events []githubfake.Event
	}{
		{1, []githubfake.Event{githubfake.OpenPR{Title: "first"}}},
		{2, []githubfake.Event{githubfake.OpenPR{Title: "second"}, githubfake.MergeConflict{}}},
		{3, []githubfake.Event{githubfake.OpenPR{Title: "wip", Draft: true}}},
		{4, []githubfake.Event{githubfake.OpenPR{Author: githubfake.Bot("dependabot"), Title: "Bump x"}, githubfake.Assign{Assignees: []githubfake.Actor{dev}}}},
		{5, []githubfake.Event{githubfake.OpenPR{Author: alice, Title: "assigned"}, githubfake.Assign{Assignees: []githubfake.Actor{dev}}}},
		{6, []githubfake.Event{githubfake.OpenPR{Author: alice, Title: "review"}, githubfake.ReviewRequested{Reviewers: []githubfake.Actor{dev}}}},
	} {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: pr.n}, pr.events...))
	}
}

func (h *harness) startAll(args map[string]any) contract.StartAllOutput {
	h.t.Helper()
	raw, errText := h.call("pr_monitor_start_all", args)
	require.Empty(h.t, errText)
	var out contract.StartAllOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	return out
}

func startedPRs(out contract.StartAllOutput) []string {
	var prs []string
	for _, s := range out.Started {
		prs = append(prs, s.PR)
	}
	return prs
}

func TestStartAllMonitorsTheViewersOpenPRsInOneRequest(t *testing.T) {
	tests := []struct {
		name        string
		args        map[string]any
		wantStarted []string
		wantSkipped map[string]string
		wantMessage string
	}{
		{
			name:        "by default: the viewer's own, no drafts, no dependency bots",
			args:        map[string]any{},
			wantStarted: []string{"acme/widgets#2", "acme/widgets#1"},
			wantSkipped: map[string]string{"acme/widgets#3": "draft"},
			wantMessage: "Monitoring 2 open pull requests of dev; 1 skipped.",
		},
		{
			name:        "with assigned: the bot's update is found and skipped",
			args:        map[string]any{"include_assigned": true},
			wantStarted: []string{"acme/widgets#2", "acme/widgets#1", "acme/widgets#5"},
			wantSkipped: map[string]string{"acme/widgets#3": "draft", "acme/widgets#4": "dependency update by dependabot[bot]"},
			wantMessage: "Monitoring 3 open pull requests of dev; 2 skipped.",
		},
		{
			name: "everything asked for",
			args: map[string]any{"include_assigned": true, "include_review_requested": true, "include_drafts": true, "include_dependency_bots": true},
			wantStarted: []string{
				"acme/widgets#3", "acme/widgets#2", "acme/widgets#1", "acme/widgets#6", "acme/widgets#5", "acme/widgets#4",
			},
			wantMessage: "Monitoring 6 open pull requests of dev; 0 skipped.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2025-11-25"})
			openViewerPRs(t, h)
			h.fake.ResetRecording()
			out := h.startAll(tt.args)
			assert.ElementsMatch(t, tt.wantStarted, startedPRs(out))
			assert.Equal(t, tt.wantMessage, out.Message, "counts read as words, no (s)")
			skipped := map[string]string{}
			for _, s := range out.Skipped {
				skipped[s.PR] = s.Reason
			}
			for pr, why := range tt.wantSkipped {
				assert.Contains(t, skipped[pr], why, pr)
			}
			assert.Len(t, skipped, len(tt.wantSkipped))
			searches := 0
			for _, r := range h.fake.Requests() {
				if strings.Contains(r.Document, "search(") {
					searches++
				}
			}
			assert.Equal(t, 1, searches, "one search request")
			w := h.srv.runningWatcher()
			require.NotNil(t, w)
			assert.Equal(t, len(tt.wantStarted), w.Stats().PRs, "every monitor is watched; the watcher takes the first snapshots")
			assert.Equal(t, `pr_monitor_next_step(monitor_id="all", event="ready")`, out.Next)
			for _, pr := range tt.wantStarted {
				_, saved, err := h.state.Peek(monitor.ID(pr))
				require.NoError(t, err)
				assert.True(t, saved, "%s is a saved monitor like any other", pr)
			}
		})
	}
}

func TestStartAllCountsOnePullRequestInTheSingular(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "x"})
	assert.Equal(t, "Monitoring 1 open pull request of dev; 0 skipped.", h.startAll(nil).Message)
}

func TestStartAllTwiceResumesTheSameMonitors(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2025-11-25"})
	openViewerPRs(t, h)
	first := h.startAll(nil)
	second := h.startAll(nil)
	require.Len(t, second.Started, len(first.Started))
	for _, s := range second.Started {
		assert.True(t, s.Resumed, s.PR)
	}
	assert.Len(t, h.srv.mons.ByID(), len(first.Started))
}

func TestStartAllResultStaysBounded(t *testing.T) {
	out := contract.StartAllOutput{Started: []contract.StartedPR{}}
	for i := range 300 {
		out.Started = append(out.Started, contract.StartedPR{MonitorID: fmt.Sprintf("acme/widgets#%d", i), PR: fmt.Sprintf("acme/widgets#%d", i),
			Title: contract.FencedTitle(fmt.Sprintf("A rather long title for pull request number %d of the widgets repository, to fill the result", i), false)})
		out.Skipped = append(out.Skipped, contract.SkippedPR{PR: fmt.Sprintf("acme/gears#%d", i), Reason: "draft (include_drafts to monitor it)"})
	}
	got := contract.BoundStartAll(out, contract.MaxPayload)
	assert.LessOrEqual(t, contract.JSONSize(got), contract.MaxPayload)
	assert.Equal(t, 600, len(got.Started)+len(got.Skipped)+got.Omitted)
	assert.Empty(t, got.Skipped, "skipped pull requests go first")
}

// A monitor's tasks have the agent run, change and push the pull request's code with the user's
// credentials: start_all takes someone else's pull request only when its author has write access
// or is a GitHub App, and never from their fork. The viewer's own are taken from the repository or
// the viewer's own fork, never from a fork someone else owns.
func TestStartAllLeavesOutsidersAndOthersForksToAnExplicitStart(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2025-11-25"})
	dev, alice, outsider, contrib := githubfake.User("dev"), githubfake.User("alice"), githubfake.User("outsider"), githubfake.User("contrib")
	h.fake.SetAssociation("dev", "CONTRIBUTOR")
	h.fake.SetAssociation("outsider", "NONE")
	h.fake.SetAssociation("contrib", "FIRST_TIME_CONTRIBUTOR")
	review := githubfake.ReviewRequested{Reviewers: []githubfake.Actor{dev}}
	for n, events := range map[int][]githubfake.Event{
		1: {githubfake.OpenPR{Title: "mine, from my fork"}, githubfake.FromFork{}},
		2: {githubfake.OpenPR{Author: alice, Title: "a member's"}, review},
		3: {githubfake.OpenPR{Author: outsider, Title: "an outsider's"}, review},
		4: {githubfake.OpenPR{Author: contrib, Title: "a contributor's"}, githubfake.Assign{Assignees: []githubfake.Actor{dev}}},
		5: {githubfake.OpenPR{Author: alice, Title: "a member's fork"}, githubfake.FromFork{}, review},
		6: {githubfake.OpenPR{Author: githubfake.Bot("release-bot"), Title: "an app's"}, review},
		7: {githubfake.OpenPR{Title: "mine, from a fork alice owns"}, githubfake.FromFork{Owner: "alice"}},
	} {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, events...))
	}

	out := h.startAll(map[string]any{"include_assigned": true, "include_review_requested": true})
	assert.ElementsMatch(t, []string{"acme/widgets#1", "acme/widgets#2", "acme/widgets#6"}, startedPRs(out))
	skipped := map[string]string{}
	for _, s := range out.Skipped {
		skipped[s.PR] = s.Reason
	}
	assert.Equal(t, map[string]string{
		"acme/widgets#3": "by someone without write access (no association with the repository); pr_monitor_start with it as pr monitors it if you mean to work on it",
		"acme/widgets#4": "by someone without write access (a first-time contributor); pr_monitor_start with it as pr monitors it if you mean to work on it",
		"acme/widgets#5": "from someone else's fork: its code is not the repository's; pr_monitor_start with it as pr monitors it if you mean to work on it",
		"acme/widgets#7": "yours, from a fork you do not own: its code is someone else's; pr_monitor_start with it as pr monitors it if you mean to work on it",
	}, skipped)
	assert.Equal(t, 3, h.srv.runningWatcher().Stats().PRs, "nothing watched for the skipped ones")
}

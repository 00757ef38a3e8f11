package runner_test

// The safety invariants S1-S9 (docs/dispatch.md) at run time, against the fake. Their static halves
// are in package dispatch (safety_test.go).

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// busyRepo gives a run something of every kind: a stale lock to remove, a hand-off, a spawn.
func busyRepo(w *world) {
	w.green(2, githubfake.OpenPR{Draft: true})
	w.on(2, githubfake.AddLabels{Labels: []string{"wip"}})
	w.f.Advance(2 * time.Hour)
	w.ready(4)
	w.green(6, githubfake.OpenPR{})
	w.on(6, githubfake.RequestChanges(alice, "Not like this."))
}

func TestDryRunWritesNothingAndPrintsTheSameLines(t *testing.T) {
	dry := newWorld(t)
	busyRepo(dry)
	dry.f.ResetRecording()
	got := dry.mustRun(true)

	assert.Zero(t, dry.f.GraphQLMutations(), "no GraphQL mutation")
	assert.Empty(t, dry.restWrites(), "no REST write")
	assert.True(t, got.DryRun)
	require.NotEmpty(t, got.Mutations, "the writes a real run would make are listed")
	for _, m := range got.Mutations {
		assert.False(t, m.Applied, "%+v", m)
	}
	again := dry.mustRun(true)
	assert.Equal(t, got.Lines(), again.Lines(), "nothing changed on GitHub, so a second dry run decides the same")

	real := newWorld(t)
	busyRepo(real)
	want := real.mustRun(false)
	assert.Equal(t, want.Lines(), got.Lines(), "a dry run prints what a real run prints")
	assert.Equal(t, []string{"SPAWN:findings:6:" + real.head(6), "HANDOFF:4"}, lines(want))
	assert.Equal(t, writes(want), writes(got))
	assert.Len(t, real.restWrites(), len(want.Mutations))
}

func TestS1S9NoMergeNoCloseNoBranchDeletion(t *testing.T) {
	// A repository where every rule fires somewhere, run for real: every request is a read or a
	// label or assignee write (the rule table does the same for each rule on its own).
	w := newWorld(t)
	busyRepo(w)
	w.green(8, githubfake.OpenPR{})
	w.on(8, githubfake.MergeConflict{})
	w.on(10, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"t"}},
		githubfake.CheckCompleted{Name: "t", Conclusion: githubfake.ConclusionFailure})
	w.cfg.MaxSpawns = 3
	res := w.mustRun(false)
	assert.Len(t, res.Spawns, 3)
	w.assertOnlyAllowedRequests(t)
	for _, s := range res.Spawns {
		assert.NoError(t, dispatch.CheckTemplate(s.Task), "S8/S9: the rendered %s task", s.Type)
	}
}

func TestS2ChangesRequestedComesBeforeAFailedCheck(t *testing.T) {
	w := newWorld(t)
	w.on(3, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"t"}},
		githubfake.CheckCompleted{Name: "t", Conclusion: githubfake.ConclusionFailure},
		githubfake.RequestChanges(alice, "No."))
	res := w.mustRun(false)
	assert.Equal(t, []string{"SPAWN:findings:3:" + w.head(3)}, lines(res))
	assert.Equal(t, dispatch.RuleChanges, decision(t, res, 3).Rule)
}

func TestS3ChangesRequestedComesBeforeTheHandoff(t *testing.T) {
	w := newWorld(t)
	w.ready(3)
	w.on(3, githubfake.RequestChanges(alice, "Wait."))
	res := w.mustRun(false)
	assert.Equal(t, []string{"SPAWN:findings:3:" + w.head(3)}, lines(res), "never handed off")

	// With the run's spawn taken by a lower pull request, it is deferred, still not handed off.
	w2 := newWorld(t)
	w2.green(2, githubfake.OpenPR{})
	w2.on(2, githubfake.MergeConflict{})
	w2.ready(3)
	w2.on(3, githubfake.RequestChanges(alice, "Wait."))
	res = w2.mustRun(false)
	assert.Equal(t, []string{"SPAWN:rebase:2:" + w2.head(2)}, lines(res))
	assert.Equal(t, dispatch.DecisionDeferred, decision(t, res, 3).Decision)
	assert.Equal(t, dispatch.RuleChanges, decision(t, res, 3).Rule)
	assert.NotContains(t, writes(res), "add_assignee 3 alice")
}

func TestS5AGitHubErrorAbortsTheRunBeforeAnyFurtherWrite(t *testing.T) {
	for _, tt := range []struct {
		name     string
		after    int // writes that land before the failing one
		wantIs   error
		fault    githubfake.Fault
		wantSent int
	}{
		{name: "the first write rate limited", after: 0, wantIs: ghclient.ErrRateLimited,
			fault: githubfake.Fault{Match: githubfake.MatchREST("", "/repos/*/*/issues/*/labels/*"), Status: 403, Times: 1}, wantSent: 1},
		{name: "the second write fails", after: 1, wantIs: ghclient.ErrUnavailable,
			fault: githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/issues/*/labels"), Status: 502, Times: 1}, wantSent: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			busyRepo(w)
			w.f.ResetRecording()
			w.f.InjectFault(tt.fault)
			res, err := w.run(false)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), "nothing after it was tried")
			assert.Len(t, w.restWrites(), tt.wantSent, "no write after the failed one")
			applied := 0
			for _, m := range res.Mutations {
				if m.Applied {
					applied++
				}
			}
			assert.Equal(t, tt.after, applied)
		})
	}

	t.Run("a failed read: no write at all", func(t *testing.T) {
		w := newWorld(t)
		busyRepo(w)
		w.f.ResetRecording()
		w.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 503})
		_, err := w.run(false)
		assert.ErrorIs(t, err, ghclient.ErrUnavailable)
		assert.Empty(t, w.restWrites())
	})
}

func TestS6ActiveWIPNeverEndsTheRunEarly(t *testing.T) {
	w := newWorld(t)
	w.green(2, githubfake.OpenPR{})
	w.on(2, githubfake.AddLabels{Labels: []string{"wip"}})
	w.green(3, githubfake.OpenPR{})
	w.on(4, githubfake.OpenIssue{Title: "next", Labels: []string{"bug"}})
	res := w.mustRun(false)
	assert.Equal(t, dispatch.DecisionWIP, decision(t, res, 2).Decision)
	assert.Equal(t, []string{"SPAWN:self-review:3:" + w.head(3)}, lines(res), "the next pull request still gets its worker")
}

func TestS7ImplOnlyWithoutActiveWIP(t *testing.T) {
	w := newWorld(t)
	w.cfg.TrustedAuthors = []string{"renovate[bot]"} // worked on (its stale lock removed), then skipped as one of skip_authors
	w.green(2, githubfake.OpenPR{Author: githubfake.Bot("renovate")})
	w.on(2, githubfake.AddLabels{Labels: []string{"wip"}})
	w.on(4, githubfake.OpenIssue{Title: "next"})
	res := w.mustRun(false)
	assert.Empty(t, lines(res), "a held lock means work is active: no new issue")

	w.f.Advance(2 * time.Hour)
	res = w.mustRun(false)
	assert.Equal(t, []string{"SPAWN:impl:4:"}, lines(res), "once the lock is stale it is removed and the issue assigned")
	assert.Equal(t, []string{"remove_label 2 wip", "add_assignee 4 worker"}, writes(res))
}

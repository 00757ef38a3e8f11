package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// racing is a source on which something happens on GitHub right after the run's read, before its
// writes: another dispatcher's run, say.
type racing struct {
	runner.Source
	meanwhile func()
}

func (r racing) RepoSnapshot(ctx context.Context, repo dispatch.RepoRef, cost *ghclient.RepoCost) (*dispatch.Snapshot, error) {
	s, err := r.Source.RepoSnapshot(ctx, repo, cost)
	r.meanwhile()
	return s, err
}

func TestASpawnIsPrintedOnlyWithTheLockHeld(t *testing.T) {
	other := githubfake.User("other-dispatcher")
	tests := []struct {
		name      string
		meanwhile func(w *world)
		held      bool
	}{
		{name: "nobody else: the run holds its lock", meanwhile: func(*world) {}, held: true},
		{name: "another run labelled the pull request first", meanwhile: func(w *world) {
			w.on(3, githubfake.AddLabels{Labels: []string{"wip"}, By: other})
		}},
		{name: "another run labelled it, then a human took the label off and the run put it back", meanwhile: func(w *world) {
			w.on(3, githubfake.AddLabels{Labels: []string{"wip"}, By: other}, githubfake.RemoveLabel{Label: "wip", By: other})
		}, held: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.green(3, githubfake.OpenPR{})
			src := racing{Source: w.c, meanwhile: func() { tt.meanwhile(w) }}
			res, err := runner.Run(t.Context(), src, runner.Request{Repo: repo, Config: w.cfg, Templates: w.tpl, Now: w.f.Now()})
			require.NoError(t, err)
			require.Len(t, res.Mutations, 1)
			assert.True(t, res.Mutations[0].Applied)
			if tt.held {
				assert.Equal(t, []string{"SPAWN:self-review:3:" + w.head(3)}, lines(res))
				assert.Equal(t, dispatch.DecisionSpawn, decision(t, res, 3).Decision)
				return
			}
			assert.Empty(t, lines(res), "no SPAWN without the lock")
			d := decision(t, res, 3)
			assert.Equal(t, dispatch.DecisionWIP, d.Decision)
			assert.Contains(t, d.Reason, "another run applied the wip label first")
		})
	}
}

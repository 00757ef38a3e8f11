package runner_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// A task that cannot be rendered skips its pull request, with why; the spawn goes to the next,
// and the run goes on for the others.
func TestATaskThatCannotBeRenderedSkipsOnlyItsPullRequest(t *testing.T) {
	w := newWorld(t)
	tpl, err := dispatch.LoadTemplates(fstest.MapFS{"self-review.md": {Data: []byte(
		"Review #{{.Number}}.{{if eq .Number 3}} {{index .Findings 99}}{{end}}\n")}})
	require.NoError(t, err, "the sample renders")
	w.tpl = tpl
	w.cfg.MaxSpawns = 2
	w.green(3, githubfake.OpenPR{})
	w.green(4, githubfake.OpenPR{})
	w.green(6, githubfake.OpenPR{})
	w.on(6, githubfake.MergeConflict{})
	res := w.mustRun(false)

	assert.Equal(t, []string{"SPAWN:self-review:4:" + w.head(4), "SPAWN:rebase:6:" + w.head(6)}, lines(res))
	d := decision(t, res, 3)
	assert.Equal(t, dispatch.DecisionSkip, d.Decision)
	assert.Contains(t, d.Reason, "its task could not be rendered")
	assert.Equal(t, dispatch.DecisionSpawn, decision(t, res, 4).Decision)
	assert.NotContains(t, writes(res), "add_label 3 wip", "no lock on the pull request without a task")
}

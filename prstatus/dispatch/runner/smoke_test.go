package runner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestSmoke(t *testing.T) {
	w := newWorld(t)
	w.on(3, githubfake.OpenPR{Title: "a", Author: worker}, githubfake.ChecksQueued{Jobs: []string{"build"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
	res, err := w.run(false)
	require.NoError(t, err)
	t.Logf("%+v", res)
	assert.Equal(t, []string{"SPAWN:self-review:3:" + w.head(3)}, lines(res))
}

//go:build team

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// TestTheTeamTaskQueueIsTheWorkflowsDefault: the flags' default task queue, written in the CLI so
// that a build without the team deployment links no Temporal, is the workflows' own.
func TestTheTeamTaskQueueIsTheWorkflowsDefault(t *testing.T) {
	assert.Equal(t, monitorwf.DefaultTaskQueue, teamTaskQueue)
}

// TestWorkerWithoutATokenSaysSoAndExitsWithItsCode: the team build's worker resolves the token at
// start, so a missing one fails at once.
func TestWorkerWithoutATokenSaysSoAndExitsWithItsCode(t *testing.T) {
	res := runCLI(t, &testEnv{}, "worker", "--temporal", "127.0.0.1:1")
	assert.Equal(t, exitNoToken, res.code)
	assert.Contains(t, res.stderr, "no GitHub token")
}

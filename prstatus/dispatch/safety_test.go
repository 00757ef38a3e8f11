package dispatch

// S8 and S9 for the templates shipped in the binary: none tells a worker to merge, to close or to
// delete a branch (the lint itself is tested in TestCheckTemplate). The static scan of the
// dispatcher's code is in tests/dispatch_safety_static_test.go; the run-time checks are in
// package runner.

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplatesNeverTellAWorkerToMergeOrClose(t *testing.T) {
	entries, err := fs.ReadDir(builtinFS, "templates")
	require.NoError(t, err)
	require.Len(t, entries, len(SpawnTypes)+1, "one template per worker type, and the constraints")
	for _, e := range entries {
		raw, err := fs.ReadFile(builtinFS, "templates/"+e.Name())
		require.NoError(t, err)
		assert.NoError(t, CheckTemplate(string(raw)), "S8/S9: %s", e.Name())
	}
}

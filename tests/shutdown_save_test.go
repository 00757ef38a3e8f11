package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestEveryShutdownSavesTheWatchersSpend: hosts restart servers often, so most sessions are short,
// shorter than the watcher's regular save. Whichever way the host ends one (closing the server's
// input, SIGTERM, SIGINT), the watcher's spend is in spend.json and what it saw in watched.json
// when the process has exited, no temporary file is left behind, and the next start paces from it: its watcher goes on counting
// the hour from the saved points.
func TestEveryShutdownSavesTheWatchersSpend(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			w := newWorld(t, profiles[2])
			// One look at the pull request, then none for ten minutes: far fewer looks than the
			// watcher's regular save needs.
			w.flags = []string{"--poll-busy", "10m", "--poll-quiet", "10m", "--poll-other", "10m"}
			w.apply(githubfake.OpenPR{Title: "x"})
			w.launch()
			w.start()
			var spent int
			require.Eventually(t, func() bool {
				spent = watcherStatus(t, w).PointsThisHour
				return spent > 0
			}, 10*time.Second, 20*time.Millisecond, "the watcher looked")
			_, err := os.Stat(filepath.Join(w.stateDir, "spend.json"))
			require.True(t, os.IsNotExist(err), "no regular save yet")

			switch how {
			case "SIGTERM":
				require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
			case "SIGINT":
				require.NoError(t, w.cmd.Process.Signal(os.Interrupt))
			}
			_ = w.session.Close() // closes the server's input and waits for it to exit
			w.session = nil
			require.NotNil(t, w.cmd.ProcessState, "the server exited")

			saved := savedSpend(t, w.stateDir)
			assert.GreaterOrEqual(t, saved.Points, spent, "the spend of the session is saved")
			_, err = os.Stat(filepath.Join(w.stateDir, "watched.json"))
			assert.NoError(t, err, "what the watcher saw is saved too")
			entries, err := os.ReadDir(w.stateDir)
			require.NoError(t, err)
			for _, e := range entries {
				assert.NotContains(t, e.Name(), ".tmp-", "no save was left half-written")
			}

			w.launch()
			w.start()
			assert.GreaterOrEqual(t, watcherStatus(t, w).PointsThisHour, saved.Points, "the next start counts the hour from the saved spend")
		})
	}
}

// watcherStatus is pr_monitor_status's watcher.
func watcherStatus(t *testing.T, w *world) contract.WatcherStatus {
	t.Helper()
	raw, errText := w.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText)
	var st contract.StatusOutput
	require.NoError(t, json.Unmarshal(raw, &st))
	require.NotNil(t, st.Watcher, "the watcher runs")
	return *st.Watcher
}

// savedSpend is the one watcher's spend in dir's spend.json.
func savedSpend(t *testing.T, dir string) store.Spend {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "spend.json"))
	require.NoError(t, err, "spend.json is written")
	var rec struct {
		APIs map[string]store.Spend `json:"apis"`
	}
	require.NoError(t, json.Unmarshal(raw, &rec))
	require.Len(t, rec.APIs, 1, "%s", strings.TrimSpace(string(raw)))
	for _, sp := range rec.APIs {
		return sp
	}
	return store.Spend{}
}

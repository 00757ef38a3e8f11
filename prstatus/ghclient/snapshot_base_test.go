package ghclient_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The snapshot reads the base branch tip's checks in the same request, and Derive tells a failure
// the base shares from one of the pull request's own; a base tip without checks reads none.
func TestTheSnapshotReadsTheBaseTipsChecksInTheSameRequest(t *testing.T) {
	tests := []struct {
		name     string
		base     []githubfake.Event
		want     map[string]string // base check → conclusion
		baseOnly bool
	}{
		{"no checks on the base", nil, map[string]string{}, false},
		{"test fails on the base too", []githubfake.Event{githubfake.BaseCheckCompleted{Name: "test", Conclusion: "FAILURE"}},
			map[string]string{"test": "FAILURE"}, true},
		{"fixed on the base by a re-run", []githubfake.Event{
			githubfake.BaseCheckCompleted{Name: "test", Conclusion: "FAILURE"},
			githubfake.BaseCheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		}, map[string]string{"test": "SUCCESS"}, false},
		{"the base moved on to a tip without checks", []githubfake.Event{
			githubfake.BaseCheckCompleted{Name: "test", Conclusion: "FAILURE"}, githubfake.BaseBranchMoved{},
		}, map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
				githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE"})
			e.apply(t, tt.base...)
			e.rec.reset()
			s, err := e.c.Snapshot(t.Context(), ref)
			require.NoError(t, err)
			assert.Len(t, e.rec.documents(), 1, "one request")
			got := map[string]string{}
			for _, c := range s.BaseChecks {
				got[c.Name] = c.Conclusion // the rollup lists a re-run after the run it replaced
			}
			assert.Equal(t, tt.want, got)
			f := prstatus.Derive(s, e.f.Now())
			assert.Equal(t, tt.baseOnly, f.CI.FailingOnBaseOnly())
		})
	}
}

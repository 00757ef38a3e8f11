package prstatus

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// baseRun is a check run on the base branch's tip, in workflow CI.
func baseRun(name string, job int64, conclusion string) Check {
	return Check{Kind: KindCheckRun, Name: name, Status: "COMPLETED", Conclusion: conclusion, DatabaseID: job,
		WorkflowRunID: 900, WorkflowName: "CI"}
}

// A failed check that fails on the base branch's tip too is not the pull request's: Derive marks
// it, and says so when every failure is such a one. The latest run on the base counts, and a check
// of another workflow or kind with the same name is another check.
func TestAFailureOnTheBaseTipTooIsNotThePullRequests(t *testing.T) {
	tests := []struct {
		name     string
		base     []Check
		onBase   []bool // per failed check, in FailedChecks order (lint, test)
		baseOnly bool
	}{
		{"no base checks", nil, []bool{false, false}, false},
		{"both fail on base", []Check{baseRun("test", 1, "FAILURE"), baseRun("lint", 2, "TIMED_OUT")}, []bool{true, true}, true},
		{"one fails on base", []Check{baseRun("test", 1, "FAILURE"), baseRun("lint", 2, "SUCCESS")}, []bool{false, true}, false},
		{"a re-run on base passed", []Check{baseRun("test", 1, "FAILURE"), baseRun("test", 3, "SUCCESS"), baseRun("lint", 2, "FAILURE")}, []bool{true, false}, false},
		{"still running on base", []Check{{Kind: KindCheckRun, Name: "test", Status: "IN_PROGRESS", WorkflowName: "CI"}, baseRun("lint", 2, "FAILURE")}, []bool{true, false}, false},
		{"another workflow's check", []Check{func() Check { c := baseRun("test", 1, "FAILURE"); c.WorkflowName = "Nightly"; return c }(), baseRun("lint", 2, "FAILURE")}, []bool{true, false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := aPR().commit("c1", "10:00").run("test", 11, "COMPLETED", "FAILURE").run("lint", 12, "COMPLETED", "FAILURE").
				with(func(s *Snapshot) { s.BaseOID, s.BaseChecks = oid("b1"), tt.base }).derive()
			require.Len(t, f.CI.FailedChecks, 2)
			for i, c := range f.CI.FailedChecks {
				assert.Equal(t, tt.onBase[i], c.FailingOnBase, c.Name)
			}
			assert.Equal(t, tt.baseOnly, f.CI.FailingOnBaseOnly())
			require.NotEmpty(t, f.Attentions)
			assert.Equal(t, AttentionCIFailed, f.Attentions[0].Kind)
			assert.Equal(t, tt.baseOnly, strings.Contains(f.CI.Words(), "on the base branch too"), f.CI.Words())
			if tt.baseOnly {
				assert.Contains(t, f.Attentions[0].Reason, "failing on the tip of main (b100000) too")
			} else {
				assert.NotContains(t, f.Attentions[0].Reason, "tip of main")
			}
		})
	}
	assert.False(t, CIFacts{}.FailingOnBaseOnly(), "nothing failed: nothing fails on the base")
}

package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckBuckets(t *testing.T) {
	tests := []struct {
		name   string
		check  Check
		bucket checkBucket
		result string
	}{
		{"run queued", Check{Kind: KindCheckRun, Status: "QUEUED"}, bucketPending, "QUEUED"},
		{"run in progress", Check{Kind: KindCheckRun, Status: "IN_PROGRESS"}, bucketPending, "IN_PROGRESS"},
		{"run waiting", Check{Kind: KindCheckRun, Status: "WAITING"}, bucketPending, "WAITING"},
		{"run requested", Check{Kind: KindCheckRun, Status: "REQUESTED"}, bucketPending, "REQUESTED"},
		{"run pending", Check{Kind: KindCheckRun, Status: "PENDING"}, bucketPending, "PENDING"},
		{"run with nothing yet", Check{Kind: KindCheckRun}, bucketPending, "PENDING"},
		{"success", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "SUCCESS"}, bucketPassed, "SUCCESS"},
		{"neutral", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "NEUTRAL"}, bucketPassed, "NEUTRAL"},
		{"skipped", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "SKIPPED"}, bucketPassed, "SKIPPED"},
		{"failure", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "FAILURE"}, bucketFailed, "FAILURE"},
		{"timed out", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "TIMED_OUT"}, bucketFailed, "TIMED_OUT"},
		{"startup failure", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "STARTUP_FAILURE"}, bucketFailed, "STARTUP_FAILURE"},
		{"action required", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "ACTION_REQUIRED"}, bucketFailed, "ACTION_REQUIRED"},
		{"cancelled", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "CANCELLED"}, bucketCancelled, "CANCELLED"},
		{"stale", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "STALE"}, bucketCancelled, "STALE"},
		{"unknown conclusion is a failure", Check{Kind: KindCheckRun, Status: "COMPLETED", Conclusion: "SOMETHING_NEW"}, bucketFailed, "SOMETHING_NEW"},
		{"completed without a conclusion is a failure", Check{Kind: KindCheckRun, Status: "COMPLETED"}, bucketFailed, ""},
		{"lower case is understood", Check{Kind: KindCheckRun, Status: "completed", Conclusion: "success"}, bucketPassed, "SUCCESS"},
		{"a conclusion without a status has completed", Check{Kind: KindCheckRun, Conclusion: "FAILURE"}, bucketFailed, "FAILURE"},
		{"status success", Check{Kind: KindStatusContext, State: "SUCCESS"}, bucketPassed, "SUCCESS"},
		{"status failure", Check{Kind: KindStatusContext, State: "FAILURE"}, bucketFailed, "FAILURE"},
		{"status error", Check{Kind: KindStatusContext, State: "ERROR"}, bucketFailed, "ERROR"},
		{"status pending", Check{Kind: KindStatusContext, State: "PENDING"}, bucketPending, "PENDING"},
		{"status expected", Check{Kind: KindStatusContext, State: "EXPECTED"}, bucketPending, "EXPECTED"},
		{"status unknown is a failure", Check{Kind: KindStatusContext, State: "WEIRD"}, bucketFailed, "WEIRD"},
		{"kind missing, a state: a status context", Check{State: "SUCCESS"}, bucketPassed, "SUCCESS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, r := bucketOf(tt.check)
			assert.Equal(t, tt.bucket, b)
			assert.Equal(t, tt.result, r)
		})
	}
}

func TestChecksCountAndList(t *testing.T) {
	f := aPR().commit("c1", "09:00").
		passing("build", 11).
		run("test", 12, "COMPLETED", "FAILURE").
		run("lint", 13, "IN_PROGRESS", "").
		run("e2e", 14, "COMPLETED", "CANCELLED").
		status("ci/legacy", "ERROR").
		status("deploy/preview", "PENDING").
		with(func(s *Snapshot) { s.Checks[1].IsRequired = true }).
		derive()

	ci := f.CI
	assert.Equal(t, CIFacts{
		Total: 6, Passed: 1, Failed: 2, Cancelled: 1, Pending: 2,
		FailedChecks: []CheckFact{
			{Name: "ci/legacy", Kind: KindStatusContext, Result: "ERROR"},
			{Name: "test", Kind: KindCheckRun, Result: "FAILURE", URL: "https://ci.example/job/12", JobID: 12, WorkflowRunID: 500, Workflow: "CI", Required: true},
		},
		CancelledChecks: []CheckFact{
			{Name: "e2e", Kind: KindCheckRun, Result: "CANCELLED", URL: "https://ci.example/job/14", JobID: 14, WorkflowRunID: 500, Workflow: "CI"},
		},
		PendingChecks: []CheckFact{
			{Name: "deploy/preview", Kind: KindStatusContext, Result: "PENDING"},
			{Name: "lint", Kind: KindCheckRun, Result: "IN_PROGRESS", URL: "https://ci.example/job/13", JobID: 13, WorkflowRunID: 500, Workflow: "CI"},
		},
		PassedChecks: []string{"build"},
		Required:     []string{"test"},
	}, ci)
	assert.True(t, ci.FailedChecks[1].IsActions())
	assert.False(t, ci.FailedChecks[0].IsActions())
	assert.False(t, ci.Green())
}

func TestChecksKeepTheNewestRerun(t *testing.T) {
	tests := []struct {
		name       string
		pr         *prBuilder
		wantFailed int
		wantTotal  int
	}{
		{
			name:      "a failed run re-run green",
			pr:        aPR().run("test", 20, "COMPLETED", "FAILURE").passing("test", 21),
			wantTotal: 1,
		},
		{
			name:       "the re-run listed first still wins by id",
			pr:         aPR().passing("test", 21).run("test", 20, "COMPLETED", "FAILURE"),
			wantTotal:  1,
			wantFailed: 0,
		},
		{
			name:       "a green run re-run red",
			pr:         aPR().passing("test", 20).run("test", 21, "COMPLETED", "FAILURE"),
			wantTotal:  1,
			wantFailed: 1,
		},
		{
			name: "the same job name in two workflows is two checks",
			pr: aPR().run("test", 20, "COMPLETED", "FAILURE").
				with(func(s *Snapshot) {
					s.Checks = append(s.Checks, Check{Kind: KindCheckRun, Name: "test", Status: "COMPLETED", Conclusion: "SUCCESS", DatabaseID: 30, WorkflowName: "Nightly"})
				}),
			wantTotal:  2,
			wantFailed: 1,
		},
		{
			name:      "a check run and a status with one name are two checks",
			pr:        aPR().passing("test", 20).status("test", "SUCCESS"),
			wantTotal: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ci := tt.pr.derive().CI
			assert.Equal(t, tt.wantTotal, ci.Total)
			assert.Equal(t, tt.wantFailed, ci.Failed)
			assert.Equal(t, ci.Total, ci.Passed+ci.Failed+ci.Cancelled+ci.Pending)
		})
	}
}

func TestNoChecksIsGreen(t *testing.T) {
	ci := aPR().derive().CI
	assert.True(t, ci.Green())
	require.NotNil(t, ci.FailedChecks, "an empty list, so JSON shows []")
}

func TestCheckDisplayName(t *testing.T) {
	assert.Equal(t, "CI / test", CheckFact{Name: "test", Workflow: "CI"}.DisplayName())
	assert.Equal(t, "ci/legacy", CheckFact{Name: "ci/legacy"}.DisplayName())
	assert.Equal(t, "CI / test#12", CheckFact{Name: "test", Workflow: "CI", JobID: 12}.keyID())
}

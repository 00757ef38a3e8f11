package prstatus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GitHub as it behaves (docs/watcher.md): ready means every required check has reported on the
// head and passed, counting each check's latest run; an empty rollup is not green.

func approvedOn(b *prBuilder) *prBuilder { return b.review("alice", approved, "10:00") }

func requires(checks ...string) func(*Snapshot) {
	return func(s *Snapshot) { s.Rules.RequiredChecks = checks }
}

func TestARequiredCheckThatHasNotReportedKeepsThePullRequestFromBeingReady(t *testing.T) {
	tests := []struct {
		name        string
		pr          *prBuilder
		wantReady   bool
		wantMissing []string
		wantReason  string
	}{
		{
			name:      "the required check passed",
			pr:        approvedOn(green().with(requires("build"))),
			wantReady: true,
		},
		{
			name:        "the required check never reported, another passed",
			pr:          approvedOn(aPR().commit("c1", "09:00").passing("lint", 11).with(requires("build"))),
			wantMissing: []string{"build"},
			wantReason:  "waiting for checks to start: 1 required check has not reported on c100000",
		},
		{
			name:        "an empty rollup with required checks is waiting for checks to start",
			pr:          approvedOn(aPR().commit("c1", "09:00").with(requires("test", "build"))),
			wantMissing: []string{"build", "test"},
			wantReason:  "waiting for checks to start: 2 required checks have not reported on c100000",
		},
		{
			name:        "a required status context counts by its context",
			pr:          approvedOn(aPR().commit("c1", "09:00").status("ci/legacy", "SUCCESS").with(requires("ci/legacy", "deploy"))),
			wantMissing: []string{"deploy"},
			wantReason:  "waiting for checks to start",
		},
		{
			name:        "a check still running and a required one missing",
			pr:          approvedOn(aPR().commit("c1", "09:00").run("lint", 11, "IN_PROGRESS", "").with(requires("build"))),
			wantMissing: []string{"build"},
			wantReason:  "1 required check has not reported yet",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.wantMissing, f.CI.Missing)
			_, ready := attentionOf(f, AttentionReadyToMerge)
			assert.Equal(t, tt.wantReady, ready, "kinds %v", kinds(f))
			if tt.wantReason == "" {
				return
			}
			assert.Equal(t, AttentionCIPending, f.Attention.Kind, "waiting, never a question")
			assert.Contains(t, f.Attention.Reason, tt.wantReason)
			for _, m := range tt.wantMissing {
				assert.Contains(t, f.Attention.Checks, m)
			}
		})
	}
}

func TestWhatGitHubMarksRequiredIsRequiredEvenWithoutReadableRules(t *testing.T) {
	f := approvedOn(green().with(func(s *Snapshot) { s.Checks[0].IsRequired = true })).derive()
	assert.Equal(t, []string{"build"}, f.CI.Required)
	assert.Empty(t, f.CI.Missing)
	_, ready := attentionOf(f, AttentionReadyToMerge)
	assert.True(t, ready)
}

func TestAHeadPushedMomentsAgoWithNoCheckWaitsTheGraceForChecksToRegister(t *testing.T) {
	pushed := at("09:00")
	pr := func() *prBuilder { return approvedOn(aPR().commit("c1", "09:00")) }
	tests := []struct {
		name      string
		pr        *prBuilder
		now       time.Time
		grace     time.Duration
		wantReady bool
		wantUntil time.Time
	}{
		{name: "right after the push", pr: pr(), now: pushed.Add(10 * time.Second), wantUntil: pushed.Add(DefaultChecksGrace)},
		{name: "the grace is over: no CI on this head", pr: pr(), now: pushed.Add(DefaultChecksGrace), wantReady: true},
		{name: "a configured grace", pr: pr(), now: pushed.Add(2 * time.Minute), grace: 5 * time.Minute, wantUntil: pushed.Add(5 * time.Minute)},
		{name: "no grace configured", pr: pr(), now: pushed.Add(time.Second), grace: -1, wantReady: true},
		{name: "a committer's clock a little ahead", pr: pr(), now: pushed.Add(-10 * time.Second), wantUntil: pushed.Add(DefaultChecksGrace)},
		{name: "a committer's clock far ahead gets no grace", pr: pr(), now: pushed.Add(-time.Hour), wantReady: true},
		{
			name:      "a pull request opened lately on an old commit",
			pr:        pr().with(func(s *Snapshot) { s.CreatedAt = pushed.Add(time.Hour) }),
			now:       pushed.Add(time.Hour + 5*time.Second),
			wantUntil: pushed.Add(time.Hour + DefaultChecksGrace),
		},
		{name: "a check has registered", pr: approvedOn(green()), now: pushed.Add(time.Second), wantReady: true},
		{name: "required checks do not wait a grace, they wait for the checks", pr: pr().with(requires("build")), now: pushed.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.pr.build()
			f := DeriveWith(s, tt.now, Options{Reviewers: DefaultReviewerPolicy(), ChecksGrace: tt.grace})
			_, ready := attentionOf(f, AttentionReadyToMerge)
			assert.Equal(t, tt.wantReady, ready, "kinds %v: %s", kinds(f), f.Attention.Reason)
			assert.Equal(t, tt.wantUntil, f.CI.GraceUntil)
			end, ok := ChecksGraceEnd(s, tt.now, cmpGrace(tt.grace))
			assert.Equal(t, !tt.wantUntil.IsZero(), ok)
			if ok {
				assert.Equal(t, tt.wantUntil, end)
				assert.Equal(t, AttentionCIPending, f.Attention.Kind)
				assert.Contains(t, f.Attention.Reason, "waiting for checks to register on c100000")
			}
		})
	}
}

func cmpGrace(g time.Duration) time.Duration {
	if g == 0 {
		return DefaultChecksGrace
	}
	return g
}

func TestTheRollupCountsEachChecksLatestRun(t *testing.T) {
	tests := []struct {
		name      string
		pr        *prBuilder
		wantGreen bool
		wantTotal int
	}{
		{
			name:      "a superseded failure does not fail the head",
			pr:        green().run("test", 5, "COMPLETED", "FAILURE"),
			wantGreen: true, wantTotal: 2,
		},
		{
			name:      "a lingering queued duplicate does not keep it pending",
			pr:        green().run("build", 3, "QUEUED", ""),
			wantGreen: true, wantTotal: 2,
		},
		{
			name:      "the latest run decides, even when it is the one still running",
			pr:        green().run("test", 40, "IN_PROGRESS", ""),
			wantTotal: 2,
		},
		{
			name: "the status reported last counts",
			pr: green().with(func(s *Snapshot) {
				s.Checks = append(s.Checks,
					Check{Kind: KindStatusContext, Name: "ci/legacy", State: "FAILURE", At: at("09:10")},
					Check{Kind: KindStatusContext, Name: "ci/legacy", State: "SUCCESS", At: at("09:20")})
			}),
			wantGreen: true, wantTotal: 3,
		},
		{
			name: "statuses and check runs both count",
			pr: green().with(func(s *Snapshot) {
				s.Checks = append(s.Checks, Check{Kind: KindStatusContext, Name: "ci/legacy", State: "PENDING", At: at("09:10")})
			}),
			wantTotal: 3,
		},
		{name: "neutral passes", pr: green().run("lint", 30, "COMPLETED", "NEUTRAL"), wantGreen: true, wantTotal: 3},
		{name: "skipped passes", pr: green().run("lint", 30, "COMPLETED", "SKIPPED"), wantGreen: true, wantTotal: 3},
		{name: "stale does not pass: it needs a re-run", pr: green().run("lint", 30, "COMPLETED", "STALE"), wantTotal: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ci := tt.pr.derive().CI
			assert.Equal(t, tt.wantGreen, ci.Green(), "%+v", ci)
			assert.Equal(t, tt.wantTotal, ci.Total)
		})
	}
}

func TestUnknownMergeabilityDecidesNothing(t *testing.T) {
	f := approvedOn(green()).mergeable(MergeableUnknown).with(func(s *Snapshot) { s.MergeStateStatus = "UNKNOWN" }).derive()
	_, ready := attentionOf(f, AttentionReadyToMerge)
	assert.False(t, ready, "never ready from UNKNOWN")
	_, conflict := attentionOf(f, AttentionMergeConflict)
	assert.False(t, conflict, "never a conflict from UNKNOWN")
	require.Equal(t, AttentionNone, f.Attention.Kind)
	assert.Contains(t, f.Attention.Reason, "GitHub is still computing mergeability")
}

func TestABlockedMergeIsExplainedFromTheSnapshot(t *testing.T) {
	blocked := func(b *prBuilder) *prBuilder {
		return b.with(func(s *Snapshot) { s.MergeStateStatus = "BLOCKED" })
	}
	tests := []struct {
		name      string
		pr        *prBuilder
		want      []string
		wantKind  AttentionKind
		notGreen  bool
		inReasons string
	}{
		{
			name:     "missing approvals",
			pr:       blocked(approvedOn(green()).with(func(s *Snapshot) { s.Rules.RequiredApprovals = 2 })),
			want:     []string{"2 approving reviews are required, 1 given"},
			wantKind: AttentionReadyToMerge,
		},
		{
			name:     "an approval required by GitHub's review decision",
			pr:       blocked(green().decision("REVIEW_REQUIRED")),
			want:     []string{"an approving review from someone with write access is required"},
			wantKind: AttentionNone,
		},
		{
			name:     "a required check that failed",
			pr:       blocked(approvedOn(green().run("e2e", 30, "COMPLETED", "FAILURE").with(requires("e2e")))),
			want:     []string{"1 required check has not passed"},
			wantKind: AttentionCIFailed,
		},
		{
			name: "unresolved conversations",
			pr: blocked(approvedOn(green()).
				thread("T1", say{who: "carol", when: "10:05"}, say{who: "dev", when: "10:10"}).
				with(func(s *Snapshot) { s.Rules.ConversationResolution = true })),
			want:     []string{"every conversation must be resolved first (1 thread is unresolved)"},
			wantKind: AttentionNone, // not asked while GitHub would refuse
		},
		{
			name: "a code owner's review",
			pr: blocked(approvedOn(green()).request("acme/owners").with(func(s *Snapshot) {
				s.Rules.CodeOwnerReviews = true
				s.CodeOwnerRequests = []string{"acme/owners"}
			})),
			want:     []string{"a code owner must approve (1 code owner review is requested)"},
			wantKind: AttentionNone,
		},
		{
			name:     "a rule the token cannot read",
			pr:       blocked(approvedOn(green())),
			want:     []string{"a rule prmonitor cannot read holds the merge (a ruleset, signed commits, a deployment, or a branch restriction)"},
			wantKind: AttentionReadyToMerge,
		},
		{
			name:      "a rule the token cannot read, and no check has reported: not green",
			pr:        blocked(approvedOn(aPR().commit("c1", "09:00"))),
			want:      []string{"no check has reported on the head yet, and a rule prmonitor cannot read holds the merge (most likely a required check that has not started)"},
			wantKind:  AttentionCIPending,
			notGreen:  true,
			inReasons: "waiting for checks to start on c100000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.want, f.Blocked)
			assert.Equal(t, tt.wantKind, f.Attention.Kind, "kinds %v", kinds(f))
			assert.Equal(t, !tt.notGreen && f.CI.Failed == 0, f.CI.Green())
			if tt.inReasons != "" {
				assert.Contains(t, f.Attention.Reason, tt.inReasons)
			}
			if tt.wantKind == AttentionReadyToMerge || tt.wantKind == AttentionNone {
				assert.Contains(t, f.Attention.Reason, "GitHub blocks the merge: "+tt.want[0], "the ready and waiting texts explain it")
			}
		})
	}
}

func TestNothingIsBlockedUnlessGitHubSaysSo(t *testing.T) {
	f := approvedOn(green()).with(func(s *Snapshot) {
		s.MergeStateStatus = "CLEAN"
		s.Rules.RequiredApprovals = 3
	}).derive()
	assert.Empty(t, f.Blocked)
	assert.NotContains(t, f.Attention.Reason, "blocks")
}

func TestAResolvedConversationLetsTheQuestionCome(t *testing.T) {
	pr := func(state string, resolved bool) Facts {
		b := approvedOn(green()).with(func(s *Snapshot) {
			s.Rules.ConversationResolution = true
			s.MergeStateStatus = state
		})
		talk := []say{{who: "carol", when: "10:05"}, {who: "dev", when: "10:10"}}
		if resolved {
			return b.resolvedThread("T1", talk...).derive()
		}
		return b.thread("T1", talk...).derive()
	}
	waiting := pr("BLOCKED", false)
	assert.Equal(t, AttentionNone, waiting.Attention.Kind)
	assert.Contains(t, waiting.Attention.Reason, "GitHub blocks the merge: every conversation must be resolved first (1 thread is unresolved)")
	ready := pr("CLEAN", true)
	assert.Equal(t, AttentionReadyToMerge, ready.Attention.Kind, "%s", ready.Attention.Reason)
}

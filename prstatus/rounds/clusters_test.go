package rounds

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func priorIDs(b *ClusterBrief) []string {
	var out []string
	for _, p := range b.Prior {
		out = append(out, p.ThreadID)
	}
	return out
}

func newIDs(b *ClusterBrief) []string {
	var out []string
	for _, t := range b.NewThreads {
		out = append(out, t.ID)
	}
	return out
}

func TestPriorResolutions(t *testing.T) {
	f := aPR().
		prior(past{id: "T1", path: "api/list.go", line: 12, who: "bob", body: "Please validate `limit`: negative values break paging.",
			asked: "09:00", round: "r1", replied: "10:00", category: CategoryValidation}).
		prior(past{id: "T2", path: "store/db.go", line: 30, who: "carol", body: "The error from Close is swallowed.",
			asked: "09:10", round: "r1", replied: "10:05", kind: prstatus.ReplyReplied, open: true}).
		resolvedThread("T3", say{who: "bob", when: "09:20"}, say{who: "dev", when: "10:10", body: "Done, no marker."}).
		fresh("T4", "api/list.go", 20, "bob", "+1d 09:00", "Another one").
		derive()

	got := PriorResolutions(&f)
	require.Len(t, got, 2)
	assert.Equal(t, PriorResolution{
		ThreadID: "T1", Round: "r1", Category: CategoryValidation, Path: "api/list.go", Line: 12, Reviewer: "bob",
		RepliedAt: at("10:00"), Kind: prstatus.ReplyAddressed, Resolved: true,
		Excerpt: "Please validate `limit`: negative values break paging.",
	}, got[0])
	assert.Equal(t, "T2", got[1].ThreadID)
	assert.Equal(t, CategoryErrorHandling, got[1].Category, "no category in the marker: categorised from the comment")
	assert.Equal(t, prstatus.ReplyReplied, got[1].Kind)
	assert.False(t, got[1].Resolved, "answered and waiting for the reviewer")
	assert.Equal(t, at("10:05"), got[1].RepliedAt)

	assert.Nil(t, PriorResolutions(nil))
}

func TestPriorResolutionExcerptIsBoundedAndClean(t *testing.T) {
	body := "Line one\n\n  line two <!-- hidden bot metadata -->\u202e reversed\n```go\nfunc x() {}\n```\n" + strings.Repeat("word ", 200)
	f := aPR().prior(past{id: "T1", path: "a.go", body: body, asked: "09:00", round: "r1", replied: "10:00"}).derive()
	got := PriorResolutions(&f)
	require.Len(t, got, 1)
	ex := got[0].Excerpt
	assert.True(t, strings.HasPrefix(ex, "Line one line two reversed [code] word word"), ex)
	assert.LessOrEqual(t, utf8.RuneCountInString(ex), excerptRunes)
	assert.True(t, strings.HasSuffix(ex, "…"))
	assert.NotContains(t, ex, "hidden")
	assert.NotContains(t, ex, "\u202e")
}

func TestForgedMarkerIsNoPriorResolution(t *testing.T) {
	// mallory (a reviewer, neither the PR's author nor the token's user) pastes a marker.
	f := aPR().
		prior(past{id: "T1", path: "api/list.go", body: "Validate the input.", asked: "09:00", round: "r1", replied: "10:00",
			category: CategoryValidation, by: "mallory"}).
		fresh("T2", "api/list.go", 20, "bob", "+1d 09:00", "Validate this input too.").
		derive()
	assert.Empty(t, PriorResolutions(&f))
	res := Cluster(&f, []string{"T2"}, 0)
	assert.Nil(t, res.Brief)
	assert.False(t, res.Gate)
	assert.Contains(t, res.Reason, "no prior resolutions")
}

func TestMarkerForAnotherThreadIsNoPriorResolution(t *testing.T) {
	f := aPR().rawThread(prstatus.Thread{ID: "T1", Path: "a.go", IsResolved: true},
		say{who: "bob", when: "09:00", body: "Validate it"},
		say{who: "dev", when: "10:00", body: "> quoting\n" + prstatus.Marker{Round: "r1", Thread: "T9", Kind: prstatus.ReplyAddressed}.String()}).
		derive()
	assert.Empty(t, PriorResolutions(&f))
}

func TestClusterRecurringConcernAcrossRounds(t *testing.T) {
	// Validation comes back round after round, one or two threads at a time, in different files.
	b := aPR().
		prior(past{id: "T1", path: "api/list.go", line: 12, body: "Validate `limit`: negative values break paging.",
			asked: "09:00", round: "r1", replied: "10:00", category: CategoryValidation}).
		prior(past{id: "T2", path: "store/users.go", line: 40, body: "Need to check that the id is not empty.",
			asked: "+1d 09:00", round: "r2", replied: "+1d 10:00"}).
		prior(past{id: "T3", path: "api/get.go", line: 8, who: "carol", body: "This accepts malformed ids; reject them.",
			asked: "+1d 09:05", round: "r2", replied: "+1d 10:05", category: CategoryValidation}).
		prior(past{id: "T0", path: "cli/run.go", line: 3, body: "nit: rename tmp2.",
			asked: "+1d 09:10", round: "r2", replied: "+1d 10:10", category: CategoryNaming}).
		fresh("T4", "api/create.go", 22, "bob", "+2d 09:00", "What happens when `count` is negative? Please validate the input.")
	f := b.derive()

	res := Cluster(&f, []string{"T4"}, 0)
	require.NotNil(t, res.Brief, res.Reason)
	assert.True(t, res.Gate)
	assert.True(t, res.Overlap)
	br := res.Brief
	assert.Equal(t, "validation", br.Theme)
	assert.Equal(t, ThemeCategory, br.ThemeKind)
	assert.Equal(t, []string{"T4"}, newIDs(br))
	assert.Equal(t, []string{"T1", "T2", "T3"}, priorIDs(br), "the naming fix is not part of the cluster")
	assert.Equal(t, []string{"r1", "r2"}, br.Rounds)
	assert.Equal(t, []string{"api/create.go", "api/get.go", "api/list.go", "store/users.go"}, br.Files)
	assert.Equal(t, ClusterThread{ID: "T4", Reviewer: "bob", Path: "api/create.go", Line: 22, Category: CategoryValidation}, br.NewThreads[0])
	assert.Equal(t, "r2", br.Prior[2].Round)
	assert.Equal(t, at("+1d 10:05"), br.Prior[2].RepliedAt)
	for _, word := range []string{"band-aid", "correct but incomplete", "sound and independent", "no reviewer flagged"} {
		assert.Contains(t, br.Instruction, word)
	}
	assert.Equal(t, `cluster on category "validation": 1 new thread and 3 prior resolutions from the last 3 rounds`, res.Reason)
}

func TestClusterOneNewThreadJoinsItsPriorByFile(t *testing.T) {
	f := aPR().
		prior(past{id: "T1", path: "poll/loop.go", line: 12, body: "This swallows the error.", asked: "09:00", round: "r1",
			replied: "10:00", category: CategoryErrorHandling}).
		prior(past{id: "T2", path: "store/db.go", line: 1, body: "Add a unit test for this.", asked: "09:00", round: "r1",
			replied: "10:01", category: CategoryTesting}).
		fresh("T3", "poll/loop.go", 80, "carol", "+1d 09:00", "Why sleep here? LGTM otherwise.").
		derive()
	res := Cluster(&f, []string{"T3"}, 3)
	require.NotNil(t, res.Brief, res.Reason)
	assert.Equal(t, ThemeFile, res.Brief.ThemeKind)
	assert.Equal(t, "poll/loop.go", res.Brief.Theme)
	assert.Equal(t, []string{"T1"}, priorIDs(res.Brief))
	assert.Equal(t, CategoryOther, res.Brief.NewThreads[0].Category)
}

func TestClusterDirectorySubtree(t *testing.T) {
	base := func() *prBuilder {
		return aPR().prior(past{id: "T1", path: "pkg/api/list.go", body: "nit: rename tmp.", asked: "09:00", round: "r1", replied: "10:00",
			category: CategoryNaming})
	}
	// Below the prior's directory: a subtree.
	f := base().fresh("T2", "pkg/api/v2/get.go", 5, "bob", "+1d 09:00", "This panics on a nil pointer.").derive()
	res := Cluster(&f, []string{"T2"}, 0)
	require.NotNil(t, res.Brief, res.Reason)
	assert.Equal(t, ThemeDirectory, res.Brief.ThemeKind)
	assert.Equal(t, "pkg/api/", res.Brief.Theme)

	// A sibling directory, or only the repository root in common: unrelated.
	for _, p := range []string{"pkg/store/get.go", "main.go"} {
		f = base().fresh("T2", p, 5, "bob", "+1d 09:00", "This panics on a nil pointer.").derive()
		res = Cluster(&f, []string{"T2"}, 0)
		assert.Nil(t, res.Brief, p)
		assert.True(t, res.Gate, p)
		assert.False(t, res.Overlap, p)
		assert.True(t, strings.HasPrefix(res.Reason, "unrelated feedback"), res.Reason)
	}
}

func TestClusterSkipsUnrelatedFeedback(t *testing.T) {
	f := aPR().
		prior(past{id: "T1", path: "store/users.go", body: "Validate the id.", asked: "09:00", round: "r1", replied: "10:00",
			category: CategoryValidation}).
		fresh("T2", "cli/run.go", 5, "bob", "+1d 09:00", "nit: rename `tmp2`.").
		derive()
	res := Cluster(&f, []string{"T2"}, 0)
	assert.Nil(t, res.Brief)
	assert.True(t, res.Gate)
	assert.False(t, res.Overlap)
	assert.Equal(t, "unrelated feedback: 1 new thread shares no category, file or directory with 1 prior resolution in the last 3 rounds", res.Reason)
}

func TestClusterThreeNewThreadsInOneFile(t *testing.T) {
	f := aPR().
		fresh("T1", "render/frame.go", 10, "bob", "09:00", "This allocates on every frame.").
		fresh("T2", "render/frame.go", 40, "carol", "09:05", "nit: rename `buf2`.").
		fresh("T3", "render/frame.go", 90, "bob", "09:10", "Is this still needed?").
		fresh("T4", "cli/run.go", 1, "bob", "09:15", "Unrelated remark.").
		derive()
	res := Cluster(&f, []string{"T3", "T1", "T2", "T4"}, 0)
	require.NotNil(t, res.Brief, res.Reason)
	assert.Equal(t, ThemeFile, res.Brief.ThemeKind)
	assert.Equal(t, "render/frame.go", res.Brief.Theme)
	assert.Equal(t, []string{"T1", "T2", "T3"}, newIDs(res.Brief))
	assert.Empty(t, res.Brief.Prior)
	assert.Empty(t, res.Brief.Rounds)
	assert.Equal(t, instructionNewOnly, res.Brief.Instruction)
	assert.Contains(t, res.Reason, "1 of 4 new threads outside this cluster")
}

func TestClusterGate(t *testing.T) {
	withPrior := func() *prBuilder {
		return aPR().prior(past{id: "P1", path: "api/list.go", body: "Validate it.", asked: "09:00", round: "r1", replied: "12:00",
			category: CategoryValidation})
	}
	tests := []struct {
		name   string
		pr     *prBuilder
		ids    []string
		reason string
	}{
		{name: "no new threads", pr: withPrior(), ids: nil, reason: "no new threads to cluster"},
		{name: "unknown ids are ignored", pr: withPrior(), ids: []string{"nope", ""}, reason: "no new threads to cluster"},
		{
			name: "one new thread, no prior resolutions",
			pr:   aPR().fresh("T1", "api/list.go", 1, "bob", "09:00", "Validate it."), ids: []string{"T1"},
			reason: "1 new thread and no prior resolutions in the last 3 rounds: nothing to cluster",
		},
		{
			name: "two new threads, no feedback since the newest prior reply",
			pr: withPrior().fresh("T1", "api/list.go", 1, "bob", "10:00", "Validate it.").
				fresh("T2", "api/list.go", 2, "bob", "11:00", "Validate this too."),
			ids:    []string{"T1", "T2"},
			reason: "2 new threads, and no feedback newer than the newest prior reply (2026-11-20T12:00:00Z)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			res := Cluster(&f, tt.ids, 0)
			assert.Equal(t, ClusterResult{Reason: tt.reason}, res)
		})
	}
	assert.Equal(t, ClusterResult{Reason: "no facts to cluster"}, Cluster(nil, []string{"T1"}, 3))
}

func TestClusterLooksBackOnlyOverTheLastRounds(t *testing.T) {
	// Validation was fixed in round 1; rounds 2-4 were about naming elsewhere.
	b := aPR().prior(past{id: "P1", path: "api/list.go", body: "Validate it.", asked: "09:00", round: "r1", replied: "10:00",
		category: CategoryValidation})
	for r := 2; r <= 4; r++ {
		b.prior(past{id: fmt.Sprintf("P%d", r), path: "cli/run.go", body: "Rename it.", asked: fmt.Sprintf("+%dd 09:00", r),
			round: fmt.Sprintf("r%d", r), replied: fmt.Sprintf("+%dd 10:00", r), category: CategoryNaming})
	}
	f := b.fresh("T1", "api/get.go", 1, "bob", "+5d 09:00", "Validate the input.").derive()

	res := Cluster(&f, []string{"T1"}, 3)
	assert.Nil(t, res.Brief)
	assert.Contains(t, res.Reason, "unrelated feedback")
	assert.Contains(t, res.Reason, "the last 3 rounds (1 older not looked at)")

	res = Cluster(&f, []string{"T1"}, 4)
	require.NotNil(t, res.Brief, res.Reason)
	assert.Equal(t, []string{"P1"}, priorIDs(res.Brief))
	assert.Equal(t, []string{"r1", "r2", "r3", "r4"}, res.Brief.Rounds)
}

func TestClusterBriefSizeDoesNotGrowWithRounds(t *testing.T) {
	size := func(rounds int) int {
		b, ids := roundsPR(rounds, 2)
		f := b.derive()
		res := Cluster(&f, ids, 0)
		require.NotNil(t, res.Brief, res.Reason)
		require.Len(t, res.Brief.Rounds, min(rounds, DefaultLookback))
		raw, err := json.Marshal(res.Brief)
		require.NoError(t, err)
		return len(raw)
	}
	three, fifteen := size(3), size(15)
	assert.LessOrEqual(t, fifteen, three, "15 rounds: %d bytes, 3 rounds: %d bytes", fifteen, three)
	t.Logf("brief: 3 rounds %d bytes, 15 rounds %d bytes", three, fifteen)
}

func TestClusterBriefIsBounded(t *testing.T) {
	b, ids := roundsPR(15, 10)
	for i := range 30 {
		id := fmt.Sprintf("PRRT_new_%02d", i+1)
		b.fresh(id, "api/h00.go", 100+i, "bob", "+15d 10:00", "Validate the input here too.")
		ids = append(ids, id)
	}
	f := b.derive()
	res := Cluster(&f, ids, MaxLookback+5)
	require.NotNil(t, res.Brief)
	assert.Len(t, res.Brief.Prior, maxBriefPrior)
	assert.Len(t, res.Brief.NewThreads, maxBriefThreads)
	assert.Len(t, res.Brief.Rounds, MaxLookback)
	assert.LessOrEqual(t, len(res.Brief.Files), maxBriefFiles)
	for _, p := range res.Brief.Prior {
		assert.Contains(t, []string{"r13", "r14"}, p.Round, "the newest prior resolutions are kept")
		assert.LessOrEqual(t, utf8.RuneCountInString(p.Excerpt), excerptRunes)
	}
	raw, err := json.Marshal(res.Brief)
	require.NoError(t, err)
	t.Logf("bounded brief (15 rounds × 10 threads, 31 new, lookback %d): %d bytes", MaxLookback, len(raw))
}

func TestClusterBriefHardCeiling(t *testing.T) {
	// Everything as large and as costly to encode as it can be: "<" is six bytes in JSON.
	huge := strings.Repeat("<", 5000)
	b := aPR().with(func(s *prstatus.Snapshot) { s.Author.Login = huge })
	for i := range 200 {
		// A marker keeps only a safe alphabet, so a prior's id that round-trips is plain ASCII.
		id := fmt.Sprintf("%s%03d", strings.Repeat("T", 5000), i)
		b.rawThread(prstatus.Thread{ID: id, Path: huge + "/" + huge, Line: i, IsResolved: true},
			say{who: huge, when: "09:00", body: huge},
			say{who: huge, when: "10:00", body: prstatus.Marker{Round: strings.Repeat("r", 5000) + fmt.Sprint(i%15), Thread: id, Kind: prstatus.ReplyKind(strings.Repeat("k", 5000)), Category: "validation"}.String()})
	}
	ids := []string{}
	for i := range 200 {
		id := fmt.Sprintf("N%s%03d", huge, i)
		b.fresh(id, huge+"/"+huge, i, huge, "+1d 09:00", huge+" validate")
		ids = append(ids, id)
	}
	f := b.derive()
	res := Cluster(&f, ids, MaxLookback)
	require.NotNil(t, res.Brief, res.Reason)
	raw, err := json.Marshal(res.Brief)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(raw), MaxClusterBriefBytes)
	t.Logf("worst-case brief: %d bytes (ceiling %d)", len(raw), MaxClusterBriefBytes)
}

func TestClusterIsDeterministic(t *testing.T) {
	b := aPR().
		prior(past{id: "T1", path: "api/list.go", body: "Validate the limit.", asked: "09:00", round: "r1", replied: "10:00"}).
		prior(past{id: "T2", path: "api/get.go", body: "Validate the id.", asked: "09:00", round: "r1", replied: "10:00"}).
		prior(past{id: "T3", path: "store/x.go", body: "Swallowed error.", asked: "+1d 09:00", round: "r2", replied: "+1d 10:00"}).
		fresh("N1", "api/put.go", 1, "bob", "+2d 09:00", "Validate the body.").
		fresh("N2", "store/x.go", 2, "carol", "+2d 09:00", "Error ignored again.").
		fresh("N3", "api/put.go", 3, "bob", "+2d 09:00", "Validate the header.")
	ids := []string{"N1", "N2", "N3"}
	base := b.build()
	f := prstatus.Derive(base, at("+3d 00:00"))
	want := Cluster(&f, ids, 0)
	require.NotNil(t, want.Brief)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		s := shuffled(base, rng)
		fi := prstatus.Derive(s, at("+3d 00:00"))
		got := Cluster(&fi, shuffle(append(ids, "N1", "unknown"), rng), 0)
		require.Equal(t, want, got, "shuffle %d", i)
	}
}

func FuzzCluster(f *testing.F) {
	f.Add([]byte{}, uint8(3), 0)
	f.Add([]byte("clusters of feedback over many rounds"), uint8(7), 2)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}, uint8(0xff), -1)
	f.Fuzz(func(t *testing.T, data []byte, mask uint8, lookback int) {
		s := (&gen{data: data}).snapshot()
		// Give the generated threads paths, bodies and markers worth clustering.
		for i := range s.Threads {
			th := &s.Threads[i]
			th.Path = []string{"a/b.go", "a/c/d.go", "e.go", "", "a/b_test.go"}[i%5]
			for j := range th.Comments {
				if j == 0 {
					th.Comments[j].Body = []string{"Validate the input.", "Swallowed error.", "hm", "rename it"}[(i+j)%4]
				} else if j%2 == 1 {
					th.Comments[j].Body = "ok " + prstatus.Marker{Round: fmt.Sprint("r", i%4), Thread: th.ID, Kind: prstatus.ReplyAddressed}.String()
				}
			}
		}
		fa := prstatus.Derive(s, day0)
		var ids []string
		for i := range s.Threads {
			if mask&(1<<(i%8)) != 0 {
				ids = append(ids, s.Threads[i].ID)
			}
		}
		var res ClusterResult
		require.NotPanics(t, func() { res = Cluster(&fa, ids, lookback) })
		require.NotEmpty(t, res.Reason)
		if res.Brief != nil {
			require.True(t, res.Gate && res.Overlap)
			require.NotEmpty(t, res.Brief.NewThreads)
			raw, err := json.Marshal(res.Brief)
			require.NoError(t, err)
			require.LessOrEqual(t, len(raw), MaxClusterBriefBytes)
		}
		fb := prstatus.Derive(shuffled(s, rand.New(rand.NewPCG(uint64(len(data)), 9))), day0)
		require.Equal(t, res, Cluster(&fb, shuffle(ids, rand.New(rand.NewPCG(1, uint64(mask)))), lookback))
	})
}

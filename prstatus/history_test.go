package prstatus

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewSaying submits a review with a body of its own.
func (b *prBuilder) reviewSaying(who string, state ReviewState, when, body string) *prBuilder {
	b.review(who, state, when)
	b.s.Reviews[len(b.s.Reviews)-1].Body = body
	if n := len(b.s.LatestOpinionatedReviews); state.Opinionated() && n > 0 {
		b.s.LatestOpinionatedReviews[n-1].Body = body
	}
	return b
}

func TestHistory(t *testing.T) {
	f := aPR().commit("c1", "09:00").
		review("bob", cr, "10:00").
		reviewSaying("copilot-pull-request-reviewer[bot]", comment, "10:05", "Copilot reviewed 3 files.").
		commit("c2", "11:00").
		review("bob", approved, "12:00").
		review("dev", approved, "12:30").
		derive()
	var got []string
	for _, h := range f.Reviews.History {
		got = append(got, h.Reviewer+":"+string(h.State))
	}
	assert.Equal(t, []string{"bob:CHANGES_REQUESTED", "copilot-pull-request-reviewer[bot]:COMMENTED", "bob:APPROVED"}, got)
	assert.True(t, f.Reviews.History[1].IsBot)
	assert.False(t, f.Reviews.History[0].OnHead)
	assert.True(t, f.Reviews.History[2].OnHead)

	raw, err := json.Marshal(Derive(&Snapshot{}, time.Time{}))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"history":[]`)
}

// TestHistoryPropertiesOnRandomSnapshots: oldest first, never the author's, never a draft.
func TestHistoryPropertiesOnRandomSnapshots(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 1000 {
		data := make([]byte, 120)
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		s := (&gen{data: data}).snapshot()
		f := Derive(s, day0)
		h := f.Reviews.History
		require.True(t, slices.IsSortedFunc(h, func(a, b ReviewerVerdict) int { return a.SubmittedAt.Compare(b.SubmittedAt) }), "case %d", i)
		for _, v := range h {
			require.True(t, v.State.Submitted(), "case %d: %s", i, v.State)
			require.False(t, sameLogin(v.Reviewer, s.Author.Login), "case %d", i)
		}
	}
}

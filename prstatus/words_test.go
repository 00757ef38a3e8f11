package prstatus

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryAttentionKindHasWordsWithoutUnderscores(t *testing.T) {
	code := regexp.MustCompile(`[a-z]+_[a-z_]+`)
	for _, k := range AttentionOrder {
		assert.True(t, k.Known(), "%s has words of its own", k)
		w := k.Words()
		assert.NotEmpty(t, w, k)
		assert.NotRegexp(t, code, w, k)
	}
	assert.Equal(t, "merge conflict", AttentionMergeConflict.Words())
	assert.Equal(t, "changes requested", AttentionChangesRequested.Words())
}

func TestCheckCountsReadAsASentence(t *testing.T) {
	tests := []struct {
		ci   CIFacts
		want string
	}{
		{CIFacts{}, "no checks"},
		{CIFacts{Total: 4, Passed: 2, Failed: 1, Pending: 1}, "2 checks passed, 1 failed, 1 running"},
		{CIFacts{Total: 1, Passed: 1}, "1 check passed"},
		{CIFacts{Total: 3, Failed: 1, Cancelled: 2}, "1 check failed, 2 cancelled"},
		{CIFacts{Total: 2, Pending: 2}, "2 checks running"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.ci.Words())
	}
}

func TestEveryReasonIsInWords(t *testing.T) {
	lower := regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)
	upper := regexp.MustCompile(`\b[A-Z]+(_[A-Z]+)+\b`)
	rng := rand.New(rand.NewPCG(7, 11))
	for range 2000 {
		data := make([]byte, 96)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		s := (&gen{data: data}).snapshot()
		f := Derive(s, day0)
		for _, a := range f.Attentions {
			assert.NotRegexp(t, lower, a.Reason, a.Kind)
			assert.NotRegexp(t, upper, a.Reason, a.Kind)
		}
	}
}

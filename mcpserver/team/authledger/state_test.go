package authledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// The ledger's rules, one op after another: a code is used once; a sign-in's refresh generations
// are taken in order, an older one shown again revokes it; a revocation holds until its end and is
// then forgotten; malformed ops are refused.
func TestTheLedgerTakesEachCodeAndEachGenerationOnceAndKeepsRevocationsUntilTheirEnd(t *testing.T) {
	var s State
	until := t0.Add(time.Hour)
	steps := []struct {
		name string
		at   time.Time
		op   Op
		want Outcome
		err  string
	}{
		{"a code, first use", t0, Op{Kind: KindUse, Key: "code:1", Until: until}, Outcome{}, ""},
		{"the same code again", t0, Op{Kind: KindUse, Key: "code:1", Until: until}, Outcome{UsedBefore: true}, ""},
		{"a sign-in's first refresh (generation 0)", t0, Op{Kind: KindRotate, Key: "family:a", Gen: 0, Until: until}, Outcome{Rotated: true}, ""},
		{"its next (generation 1)", t0, Op{Kind: KindRotate, Key: "family:a", Gen: 1, Until: until}, Outcome{Rotated: true}, ""},
		{"generation 1 shown again: a replay", t0, Op{Kind: KindRotate, Key: "family:a", Gen: 1, Until: until}, Outcome{Reused: true}, ""},
		{"the current one after the replay: revoked", t0, Op{Kind: KindRotate, Key: "family:a", Gen: 2, Until: until}, Outcome{Revoked: true}, ""},
		{"a generation never issued", t0, Op{Kind: KindRotate, Key: "family:b", Gen: 5, Until: until}, Outcome{Reused: true}, ""},
		{"a revocation", t0, Op{Kind: KindRevoke, Key: "board:x", Until: until}, Outcome{}, ""},
		{"an empty key", t0, Op{Kind: KindUse, Until: until}, Outcome{}, "a key of 1 to 200 bytes"},
		{"no end", t0, Op{Kind: KindUse, Key: "k"}, Outcome{}, "needs its end"},
		{"an unknown op", t0, Op{Kind: "forget", Key: "k", Until: until}, Outcome{}, "unknown op"},
		{"the code once its end passed: forgotten", until, Op{Kind: KindUse, Key: "code:1", Until: until.Add(time.Hour)}, Outcome{}, ""},
	}
	for _, st := range steps {
		out, err := s.Apply(st.at, st.op)
		if st.err != "" {
			require.ErrorContains(t, err, st.err, st.name)
			continue
		}
		require.NoError(t, err, st.name)
		assert.Equal(t, st.want, out, st.name)
	}
	assert.True(t, s.Revoked(t0, "family:a"))
	assert.True(t, s.Revoked(t0, "board:x"))
	assert.False(t, s.Revoked(t0, "board:y"))
	assert.False(t, s.Revoked(until, "board:x"), "a revocation past its end no longer matters")
	s.Prune(until)
	assert.Len(t, s.Entries, 1, "only the code used again after its end is kept")
}

// A full ledger refuses a new entry rather than forget a revocation early; an entry whose end
// passed makes room.
func TestAFullLedgerRefusesRatherThanForget(t *testing.T) {
	s := State{Entries: map[string]*Entry{}}
	for i := range MaxEntries {
		s.Entries[string(rune('a'+i%26))+time.Duration(i).String()] = &Entry{Until: t0.Add(time.Duration(i%2+1) * time.Hour), Revoked: true}
	}
	_, err := s.Apply(t0, Op{Kind: KindRevoke, Key: "new", Until: t0.Add(time.Hour)})
	require.ErrorIs(t, err, ErrFull)
	_, err = s.Apply(t0.Add(time.Hour), Op{Kind: KindRevoke, Key: "new", Until: t0.Add(2 * time.Hour)})
	require.NoError(t, err, "half the entries ended")
	assert.True(t, s.Revoked(t0.Add(time.Hour), "new"))
}

package statemachine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A monitor's workflow replays the machine's steps (docs/decisions/0002): every choice made over
// the memory's maps must come out the same on every run, whatever order Go iterates them in.
// Each case runs many times; Go randomises map order per range, so map-ordered code fails here.

func TestARefinedRoundIsChosenTheSameWayEveryTimeWhenSeveralHoldTheThreads(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mem := Memory{Rounds: map[string]RoundRecord{}}
	for i := range 8 {
		mem.Rounds[fmt.Sprintf("round-%d", i)] = RoundRecord{Completed: true, ThreadIDs: []string{"T1", "T2"},
			LastDispatched: t0.Add(time.Duration(i%3) * time.Minute)}
	}
	mem.Rounds["open"] = RoundRecord{ThreadIDs: []string{"T1", "T2"}, LastDispatched: t0.Add(time.Hour)}
	s := &step{pos: Position{Memory: mem}}
	threads := []ThreadContext{{ID: "T1"}, {ID: "T2"}}
	for range 200 {
		require.Equal(t, "round-2", s.refinedRound(threads),
			"the latest dispatched completed round, the lowest id among equals; never one still open")
	}
	assert.Empty(t, s.refinedRound([]ThreadContext{{ID: "T3"}}), "no round holds a thread it never saw")
}

func TestTheRoundForgottenAtTheBoundIsTheSameEveryTimeWhenRoundsTie(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for range 50 {
		var m Memory
		for i := range maxRounds + 1 {
			m.setRound(fmt.Sprintf("r%02d", i), RoundRecord{LastDispatched: at})
		}
		require.Len(t, m.Rounds, maxRounds)
		require.NotContains(t, m.Rounds, "r00", "among rounds dispatched at the same time, the lowest id goes")
	}
}

func TestTriedKeysForgottenAtTheBoundAreTheSameEveryTime(t *testing.T) {
	var want []string
	for run := range 30 {
		var m Memory
		for i := range maxAcks + 5 {
			m.markTried(fmt.Sprintf("k%04d", maxAcks+5-i), "state")
		}
		require.Len(t, m.Tried, maxAcks)
		require.True(t, m.tried("k0001", "state"), "the key just marked is kept")
		var kept []string
		for i := range maxAcks + 6 {
			if k := fmt.Sprintf("k%04d", i); m.tried(k, "state") {
				kept = append(kept, k)
			}
		}
		if run == 0 {
			want = kept
			continue
		}
		require.Equal(t, want, kept)
	}
}

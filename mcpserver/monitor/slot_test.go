package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASecondCallSupersedesTheFirstAndAClaimNeverDoes: supersede cancels the call holding the slot
// and waits until it has finished before the new one takes it; claim takes a free slot only.
func TestASecondCallSupersedesTheFirstAndAClaimNeverDoes(t *testing.T) {
	var slot CallSlot
	first, doneFirst, late := slot.Supersede(t.Context())
	require.False(t, late)

	_, _, ok := slot.claim(t.Context())
	assert.False(t, ok, "a claim does not take a slot a call holds")

	finished := make(chan struct{})
	go func() {
		<-first.Done() // the first call sees it was superseded, then finishes its work
		time.Sleep(20 * time.Millisecond)
		close(finished)
		doneFirst()
	}()
	second, doneSecond, late := slot.Supersede(t.Context())
	require.False(t, late)
	select {
	case <-finished:
	default:
		t.Fatal("the second call began before the first finished")
	}
	assert.ErrorIs(t, first.Err(), context.Canceled)
	assert.NoError(t, second.Err())

	slot.cancel()
	assert.Error(t, second.Err(), "cancel stops the call holding the slot")
	doneSecond()
	third, doneThird, ok := slot.claim(t.Context())
	require.True(t, ok, "a free slot is claimed")
	doneThird()
	assert.Error(t, third.Err(), "done ends the call")
}

// TestACallThatDoesNotFinishIsSupersededLate: a new call cancels the one holding the slot and
// waits for it; when it does not finish within the wait, the new call takes the slot anyway,
// saying it came late, and the late call's end leaves the new one in place.
func TestACallThatDoesNotFinishIsSupersededLate(t *testing.T) {
	s := &CallSlot{wait: 20 * time.Millisecond}
	ctx1, done1, _ := s.Supersede(t.Context())
	_, done2, late := s.Supersede(t.Context())
	assert.True(t, late, "the first call never finished")
	assert.Error(t, ctx1.Err(), "the first call was cancelled")
	done1()
	assert.True(t, s.Busy(), "the late call's end leaves the new call in the slot")
	done2()
	assert.False(t, s.Busy())

	_, done3, late := s.Supersede(t.Context())
	assert.False(t, late, "an empty slot is taken at once")
	done3()
}

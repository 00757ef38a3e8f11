package monitorwf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// TestADeliveryTakenOnceIsAReplayWithinTheWindowAndTheMemoryIsCarried: the same signed body
// signalled again (under any delivery id, from any worker) is dropped without a read; after the
// window it counts again; what is remembered goes with the result.
func TestADeliveryTakenOnceIsAReplayWithinTheWindowAndTheMemoryIsCarried(t *testing.T) {
	s := newStory(t, openPR(), true)
	p := params()
	p.Owner = "dev"
	p.DeliveryWindow = time.Hour
	for _, at := range []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second} {
		s.at(at, func() {
			s.signal(SignalChanged, Change{Kind: "pull_request_review.submitted", Delivery: "new-id-" + at.String(), Digest: "d1"})
		})
	}
	var within, later int
	s.at(time.Minute, func() { within = s.status().ChangesSeen })
	s.at(2*time.Hour, func() {
		s.signal(SignalChanged, Change{Kind: "pull_request_review.submitted", Delivery: "late", Digest: "d1"})
	})
	s.at(2*time.Hour+time.Minute, func() {
		later = s.status().ChangesSeen
		s.signal(SignalChanged, Change{Kind: "issue_comment.created", Digest: "d2"})
		s.signal(SignalStop, nil)
	})
	res := s.run(p)
	assert.Equal(t, 1, within, "three deliveries of one body within the window: one change")
	assert.Equal(t, 2, later, "after the window the body counts again")
	assert.Equal(t, "dev", res.StoppedBy, "the owner's stop is recorded")
	var digests []string
	for _, d := range res.Deliveries {
		digests = append(digests, d.Digest)
	}
	assert.Equal(t, []string{"d1", "d2"}, digests, "the deliveries within the window go with the result")
}

func TestAMonitorThatEndedOtherwiseRecordsNoStop(t *testing.T) {
	merged := openPR()
	merged.State, merged.Merged = prstatus.StateMerged, true
	s := newStory(t, merged, true)
	p := params()
	p.Owner = "dev"
	res := s.run(p)
	assert.Equal(t, statemachine.ActionMerged, res.Final.Kind)
	assert.Empty(t, res.StoppedBy)
}

func TestWhichEndsADeliveryMayStartANewRunAfter(t *testing.T) {
	stopped := Result{Final: statemachine.Action{Kind: statemachine.ActionStop}, StoppedBy: "alice",
		Deliveries: []Delivery{{Digest: "seen", At: t0}}}
	closed := Result{Final: statemachine.Action{Kind: statemachine.ActionStop}}
	byID := Result{Final: statemachine.Action{Kind: statemachine.ActionStop}, StoppedBy: "id:7", StoppedByLogin: "alice"}
	tests := []struct {
		name string
		r    Result
		c    Change
		want bool
	}{
		{"stopped by its owner: the owner's pull request pushed to", stopped, Change{Owner: "Alice", Digest: "new"}, false},
		{"stopped by someone else's run: the author's event", stopped, Change{Owner: "bob", Digest: "new"}, true},
		{"ended with the pull request closed: reopened", closed, Change{Owner: "alice", Digest: "new"}, true},
		{"merged", Result{Final: statemachine.Action{Kind: statemachine.ActionMerged}}, Change{Owner: "alice"}, false},
		{"a replay of a delivery the last run took", closed, Change{Owner: "alice", Digest: "seen"}, true},
		{"a replay of a delivery the stopped run took", Result{Deliveries: stopped.Deliveries}, Change{Owner: "alice", Digest: "seen"}, false},
		{"stopped by its owner's id: a delivery naming the same id", byID, Change{Owner: "id:7", OwnerLogin: "alice-renamed"}, false},
		{"stopped by its owner's id: a delivery by another id with the login", byID, Change{Owner: "id:8", OwnerLogin: "alice"}, true},
		{"stopped by its owner's id: a delivery naming the login alone", byID, Change{Owner: "alice", OwnerLogin: "alice"}, false},
		{"stopped by a login (before ids): a delivery naming the id and that login", stopped, Change{Owner: "id:7", OwnerLogin: "Alice"}, false},
		{"stopped by a login (before ids): another login's delivery", stopped, Change{Owner: "id:9", OwnerLogin: "bob"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.r.allowsStart(tt.c))
		})
	}
}

func TestTheDeliveriesRememberedAreBounded(t *testing.T) {
	var seen []Delivery
	for i := range maxDeliveries + 10 {
		var fresh bool
		seen, fresh = took(seen, string(rune('a'+i%26))+time.Duration(i).String(), t0.Add(time.Duration(i)*time.Second), time.Hour)
		assert.True(t, fresh)
	}
	assert.Len(t, seen, maxDeliveries)
	_, fresh := took(seen, seen[len(seen)-1].Digest, t0.Add(time.Hour), 2*time.Hour)
	assert.False(t, fresh)
}

// TestAMonitorTheWorkflowEndsAsNotItsOwnersRecordsNoStop: the workflow's own end of a monitor
// whose owner did not open the pull request is no stop by that owner (it blocks no later start).
func TestAMonitorTheWorkflowEndsAsNotItsOwnersRecordsNoStop(t *testing.T) {
	s := newStory(t, openPR(), true)
	p := params()
	p.Owner = "mallory"
	res := s.run(p)
	assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
	assert.Empty(t, res.StoppedBy)
}

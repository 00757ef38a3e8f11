package monitorwf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/statemachine"
)

// A fresh monitor owes GitHub work at its first read (bob's requested changes were answered by a
// push: he is asked to review again). A monitor whose owner did not open the pull request (one a
// user started on someone else's pull request, until the front end stops it) ends at that read
// without doing it: the worker acts with the deployment's access, never for someone else.
func TestAMonitorWhoseOwnerDidNotOpenThePullRequestEndsAtItsFirstReadWithoutGitHubWork(t *testing.T) {
	answered := pushed(changesRequested(), "fix1", t0.Add(-10*time.Minute))
	tests := []struct {
		name, owner string
		performed   []statemachine.ServerActionKind
	}{
		{"the author's monitor does the work", "Dev", []statemachine.ServerActionKind{statemachine.ServerRequestReview}},
		{"a monitor with no owner (started before owners) does it too", "", []statemachine.ServerActionKind{statemachine.ServerRequestReview}},
		{"someone else's monitor ends first", "mallory", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStory(t, answered, true)
			s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
			p := params()
			p.Owner = tt.owner
			res := s.run(p)
			assert.Equal(t, tt.performed, s.gh.performed)
			if tt.performed == nil {
				assert.Equal(t, 1, s.gh.readCount(), "one read, then nothing")
				assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
				st := s.status()
				assert.Equal(t, "dev", st.Author, "status says whose pull request it is")
				assert.Contains(t, st.LastError, "not its owner's pull request")
			}
		})
	}
}

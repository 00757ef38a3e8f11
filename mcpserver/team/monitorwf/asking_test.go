package monitorwf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// approved: carol, a member, approved the head; CI is green.
func approved() prstatus.Snapshot {
	s := openPR()
	s.Reviews = append(s.Reviews, prstatus.Review{ID: "PRR_0", Author: prstatus.Actor{Login: "carol"}, State: prstatus.ReviewApproved,
		Body: "lgtm", SubmittedAt: t0.Add(-40 * time.Minute), CommitOID: s.HeadOID, AuthorAssociation: prstatus.AssocMember})
	return s
}

// A request for changes while the merge question waits on the user supersedes the question within
// the debounce: the user is not left "merge" to choose, and the agent gets the refine task.
func TestARequestForChangesSupersedesTheOpenMergeQuestionWithinTheDebounce(t *testing.T) {
	s := newStory(t, approved(), true)
	var asked, after Status
	var reply Reply
	s.at(10*time.Second, func() {
		asked = s.status()
		rework := approved()
		rework.Reviews = append(rework.Reviews, prstatus.Review{ID: "PRR_1", Author: prstatus.Actor{Login: "bob"}, State: prstatus.ReviewChangesRequested,
			Body: "rework the retries", SubmittedAt: t0.Add(5 * time.Second), CommitOID: rework.HeadOID, AuthorAssociation: prstatus.AssocMember})
		s.gh.set(rework)
		s.signal(SignalChanged, Change{Kind: "pull_request_review.submitted"})
	})
	s.at(10*time.Second+params().Debounce+5*time.Second, func() {
		after = s.status()
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(r Reply, err error) {
			assert.NoError(t, err)
			reply = r
		})
	})
	s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())

	if assert.NotNil(t, asked.Question, "the merge question was open: %+v", asked) {
		assert.Equal(t, elicitation.QReadyToMerge, asked.Question.ID)
	}
	assert.Nil(t, after.Question, "superseded within the debounce: %+v", after)
	assert.Equal(t, statemachine.ActionExecute, reply.Action.Kind, "%+v", reply.Action)
	assert.Equal(t, statemachine.TaskRefine, reply.Action.Task)
	assert.NotContains(t, s.gh.performed, statemachine.ServerMerge, "nothing merged")
}

// News that leaves the merge on the table is read and the question stays open.
func TestNewsThatKeepsTheMergeOfferedLeavesTheQuestionOpen(t *testing.T) {
	s := newStory(t, approved(), true)
	var asked, after Status
	s.at(10*time.Second, func() {
		asked = s.status()
		s.signal(SignalChanged, Change{Kind: "issue_comment.created"})
	})
	s.at(10*time.Second+params().Debounce+5*time.Second, func() { after = s.status() })
	s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	assert.Equal(t, 2, s.gh.readCount(), "the change was read while the question waited")
	if assert.NotNil(t, after.Question) && assert.NotNil(t, asked.Question) {
		assert.Equal(t, asked.Question.Seq, after.Question.Seq, "the same question is open")
	}
}

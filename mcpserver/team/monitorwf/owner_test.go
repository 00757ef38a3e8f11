package monitorwf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus"
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

// byAuthor is s opened by login, whose association with the repository GitHub reports as assoc.
func byAuthor(s prstatus.Snapshot, login string, assoc prstatus.Association) prstatus.Snapshot {
	s.Author, s.AuthorAssociation = prstatus.Actor{Login: login}, assoc
	return s
}

// A team deployment's workers act with the GitHub App's (or the operator's) access, so a monitor
// does GitHub work only for a pull request whose author has write access. A fork author without
// it who starts a monitor on their own pull request gets no GitHub write at all: the monitor
// reads once and ends before the machine sees the pull request (the review it owes bob is never
// asked again, no question is put, so no merge can be chosen), and says why. A missing
// association (not read) is none. A collaborator's, a member's and the owner's monitors do the work.
func TestAForkAuthorWithoutWriteAccessGetsNoGitHubWriteAtAll(t *testing.T) {
	answered := pushed(changesRequested(), "fix1", t0.Add(-10*time.Minute))
	tests := []struct {
		name  string
		assoc prstatus.Association
	}{
		{"a past contributor", prstatus.AssocContributor},
		{"a first-time contributor", prstatus.AssocFirstTimeContributor},
		{"no association", prstatus.AssocNone},
		{"an association not read", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStory(t, byAuthor(answered, "forker", tt.assoc), true)
			s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
			p := params()
			p.Owner = "forker"
			res := s.run(p)
			assert.Empty(t, s.gh.performed, "no GitHub write")
			assert.Equal(t, 1, s.gh.readCount(), "one read, then nothing")
			assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
			st := s.status()
			assert.Nil(t, st.Question, "no question, so no merge on anyone's choice")
			assert.Empty(t, st.Task)
			assert.Equal(t, tt.assoc, st.AuthorAssociation)
			assert.Equal(t, NoWriteAccess(tt.assoc), st.LastError)
			assert.Contains(t, st.LastError, "no write access")
		})
	}
}

func TestACollaboratorsMonitorDoesTheWork(t *testing.T) {
	answered := pushed(changesRequested(), "fix1", t0.Add(-10*time.Minute))
	tests := []struct {
		name, owner string
		assoc       prstatus.Association
	}{
		{"a collaborator from a fork", "carol", prstatus.AssocCollaborator},
		{"a member", "dev", prstatus.AssocMember},
		{"the repository's owner", "acme", prstatus.AssocOwner},
		{"a monitor with no owner (started before owners) does it whatever the association", "", prstatus.AssocContributor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			author := tt.owner
			if author == "" {
				author = "dev"
			}
			s := newStory(t, byAuthor(answered, author, tt.assoc), true)
			s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
			p := params()
			p.Owner = tt.owner
			s.run(p)
			assert.Equal(t, []statemachine.ServerActionKind{statemachine.ServerRequestReview}, s.gh.performed)
			st := s.status()
			assert.Empty(t, st.LastError)
			assert.Equal(t, tt.assoc, st.AuthorAssociation)
		})
	}
}

// Write access is read at every read: a collaborator removed from the repository while their
// monitor watches loses the workers' help at the next read.
func TestAMonitorEndsAtTheReadThatFindsItsAuthorLostWriteAccess(t *testing.T) {
	s := newStory(t, byAuthor(openPR(), "carol", prstatus.AssocCollaborator), true)
	s.at(5*time.Minute, func() {
		s.gh.set(byAuthor(pushed(changesRequested(), "fix1", t0.Add(4*time.Minute)), "carol", prstatus.AssocContributor))
		s.signal(SignalChanged, Change{Kind: "member.removed", Delivery: "d-1"})
	})
	s.at(time.Hour, func() { s.signal(SignalStop, nil) })
	p := params()
	p.Owner = "carol"
	res := s.run(p)
	assert.Empty(t, s.gh.performed, "the review bob is owed is not asked for on the App's access")
	assert.Equal(t, 2, s.gh.readCount())
	assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
	assert.Equal(t, NoWriteAccess(prstatus.AssocContributor), s.status().LastError)
}

// A monitor owned by a GitHub user id checks the pull request's author against the login it was
// started with once; a pull request's author never changes, so a later read that names the author
// by another login is the owner's rename: the monitor goes on and does its work. One whose first
// read finds someone else's pull request ends there, as a login-keyed one does.
func TestAMonitorOwnedByAnIDOutlivesItsOwnersRename(t *testing.T) {
	answered := byAuthor(pushed(changesRequested(), "fix1", t0.Add(4*time.Minute)), "dev-renamed", prstatus.AssocOwner)
	tests := []struct {
		name, login string
		performed   []statemachine.ServerActionKind
	}{
		{"the owner renamed after the first read", "dev", []statemachine.ServerActionKind{statemachine.ServerRequestReview}},
		{"someone else's pull request at the first read", "mallory", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStory(t, byAuthor(openPR(), "dev", prstatus.AssocOwner), true)
			s.at(5*time.Minute, func() {
				s.gh.set(answered)
				s.signal(SignalChanged, Change{Kind: "pull_request.synchronize", Delivery: "d-1"})
			})
			s.at(time.Hour, func() { s.signal(SignalStop, nil) })
			p := params()
			p.Owner, p.OwnerLogin = Owner{ID: 583231, Login: tt.login}.Key(), tt.login
			res := s.run(p)
			assert.Equal(t, tt.performed, s.gh.performed)
			assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
			if tt.performed != nil {
				assert.Empty(t, s.status().LastError)
				assert.Equal(t, "id:583231", s.status().Owner)
			}
		})
	}
}

// Owner keys: an id key for an owner with an id, the lower-case login without; the string form
// round-trips; ownership is by the id, and by the login only for a login-keyed monitor.
func TestAnOwnerIsKeyedByItsGitHubIDAndALoginMatchesOnlyALoginKeyedMonitor(t *testing.T) {
	alice := Owner{ID: 7, Login: "Alice"}
	recycled := Owner{ID: 8, Login: "alice"}
	renamed := Owner{ID: 7, Login: "alice-renamed"}
	assert.Equal(t, "id:7", alice.Key())
	assert.Equal(t, "alice", Owner{Login: "Alice"}.Key())
	back, ok := ParseOwner(alice.String())
	assert.True(t, ok)
	assert.Equal(t, alice, back)
	for _, bad := range []string{"", "id:7", "id:x alice", "id:-1 alice", "bob alice"} {
		_, ok := ParseOwner(bad)
		assert.False(t, ok, bad)
	}
	tests := []struct {
		name string
		who  Owner
		key  string
		owns bool
	}{
		{"the id's monitor", alice, "id:7", true},
		{"the id's monitor, renamed", renamed, "id:7", true},
		{"a recycled login, the id's monitor", recycled, "id:7", false},
		{"a login-keyed monitor, its login", alice, "alice", true},
		{"a login-keyed monitor, another login", renamed, "alice", false},
		{"no key", alice, "", false},
		{"nobody", Owner{}, "", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.owns, tt.who.owns(tt.key), tt.name)
	}
	q := ListQuery{Owner: alice}.visibilityQuery()
	assert.Contains(t, q, "PrmonitorOwner IN ('id:7', 'alice')")
	assert.Empty(t, ListQuery{Owner: Owner{Login: "x' OR 'a'='a"}}.visibilityQuery(), "nothing but a login reaches the query")
}

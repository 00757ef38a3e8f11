package front

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTheSessionsRememberedAreBoundedAndTheStalestAreForgottenFirst(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s := newMCPSessions(func() time.Time { return now }, 2*time.Hour)
	s.bind("no-user", "")
	assert.False(t, s.owns("no-user", ""), "a request without a user has no session")
	for i := range maxMCPSessions {
		if i == 10 {
			now = now.Add(3 * time.Hour) // the first ten go idle past the period
		}
		now = now.Add(time.Nanosecond)
		s.bind(fmt.Sprint("s", i), "alice")
	}
	s.bind("new", "bob")
	assert.True(t, s.owns("new", "bob"))
	assert.Len(t, s.owner, maxMCPSessions-9, "the idle ones were forgotten to make room")
	assert.False(t, s.owns("s0", "alice"), "a forgotten id is no one's, its old owner's neither")
	assert.False(t, s.owns("s0", "bob"), "a forgotten id is not adopted")
	assert.False(t, s.owns("s10", "bob"), "a live one is still alice's")

	for i := len(s.owner); i < maxMCPSessions; i++ {
		now = now.Add(time.Nanosecond)
		s.bind(fmt.Sprint("t", i), "carol")
	}
	s.bind("newest", "dave")
	assert.Len(t, s.owner, maxMCPSessions, "nothing idle: the stalest one made room")
	_, kept := s.owner["s10"]
	assert.False(t, kept, "the stalest one went (bob's refused request did not make it fresh)")
	assert.Equal(t, "alice", s.owner["s11"].user)
	assert.Equal(t, "dave", s.owner["newest"].user)
}

func TestASessionIdIsOnlyEverItsMintersAndNeverAdopted(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s := newMCPSessions(func() time.Time { return now }, time.Hour)
	ids := &sessionIDs{s: s, user: "alice"}
	id := ids.Generate()
	tests := []struct {
		name, id, user string
		want           bool
	}{
		{"the minter", id, "alice", true},
		{"another user", id, "bob", false},
		{"an id never issued", "mcp-session-ffffffff-ffff-ffff-ffff-ffffffffffff", "alice", false},
		{"an id never issued, shown again", "mcp-session-ffffffff-ffff-ffff-ffff-ffffffffffff", "alice", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.owns(tt.id, tt.user))
		})
	}
	_, _ = ids.Terminate(id)
	assert.False(t, s.owns(id, "alice"), "an ended session is gone")
}

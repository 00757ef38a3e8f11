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
	assert.False(t, s.claim("no-user", ""), "a request without a user has no session")
	for i := range maxMCPSessions {
		if i == 10 {
			now = now.Add(3 * time.Hour) // the first ten go idle past the period
		}
		now = now.Add(time.Nanosecond)
		s.claim(fmt.Sprint("s", i), "alice")
	}
	assert.True(t, s.claim("new", "bob"))
	assert.Len(t, s.owner, maxMCPSessions-9, "the idle ones were forgotten to make room")
	assert.True(t, s.claim("s0", "bob"), "a forgotten id is no one's")
	assert.False(t, s.claim("s10", "bob"), "a live one is still alice's")

	for i := len(s.owner); i < maxMCPSessions; i++ {
		now = now.Add(time.Nanosecond)
		s.claim(fmt.Sprint("t", i), "carol")
	}
	assert.True(t, s.claim("newest", "dave"))
	assert.Len(t, s.owner, maxMCPSessions, "nothing idle: the stalest one made room")
	_, kept := s.owner["s10"]
	assert.False(t, kept, "the stalest one went (bob's refused claim did not make it fresh)")
	assert.Equal(t, "alice", s.owner["s11"].user)
	assert.Equal(t, "dave", s.owner["newest"].user)
}

package oauth

import (
	"sync"
	"time"
)

// pending is a sign-in under way: from the client's authorization request (or the board's
// sign-in link) to GitHub's answer; and, once GitHub answered, the code the client exchanges.
// Both live in memory: a restart in the middle of a sign-in makes the person start it again.
type pending struct {
	id    string // the browser's cookie and GitHub's state
	board bool
	// An MCP client's request.
	client      *regClient
	redirectURI string
	// redirectGiven is the request's redirect_uri as sent ("" when it named none): the code's
	// exchange must send the same.
	redirectGiven string
	state         string
	challenge     string
	resource      string
	scope         string
	consented     bool
	// ghVerifier is the PKCE verifier of the request to GitHub.
	ghVerifier string
	created    time.Time
}

// authCode is a code handed to a client, exchanged once within codeTTL.
type authCode struct {
	family      string
	user        Identity
	client      string
	redirectURI string
	challenge   string
	resource    string
	scope       string
	expires     time.Time
	used        bool
}

const (
	pendingTTL = 10 * time.Minute
	codeTTL    = time.Minute
	maxPending = 10_000
)

type pendingSet struct {
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*pending
	codes map[string]*authCode // by the code's hash
}

func newPendingSet(now func() time.Time) *pendingSet {
	return &pendingSet{now: now, byID: map[string]*pending{}, codes: map[string]*authCode{}}
}

// add keeps p, forgetting what has expired (and, past the bound, the oldest requests).
func (ps *pendingSet) add(p *pending) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := ps.now()
	if len(ps.byID) >= maxPending {
		var oldest *pending
		for id, q := range ps.byID {
			if now.Sub(q.created) > pendingTTL {
				delete(ps.byID, id)
			} else if oldest == nil || q.created.Before(oldest.created) {
				oldest = q
			}
		}
		if len(ps.byID) >= maxPending && oldest != nil {
			delete(ps.byID, oldest.id)
		}
	}
	ps.byID[p.id] = p
}

// get is the request id names, while it lasts.
func (ps *pendingSet) get(id string) (*pending, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.byID[id]
	if !ok || ps.now().Sub(p.created) > pendingTTL {
		return nil, false
	}
	return p, true
}

// take is get, and the request is forgotten (GitHub's answer is taken once).
func (ps *pendingSet) take(id string) (*pending, bool) {
	p, ok := ps.get(id)
	if ok {
		ps.mu.Lock()
		delete(ps.byID, id)
		ps.mu.Unlock()
	}
	return p, ok
}

// consent marks the request approved by the person.
func (ps *pendingSet) consent(p *pending) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p.consented = true
}

func (ps *pendingSet) consented(p *pending) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return p.consented
}

// addCode keeps a code until it expires (and a little longer, so a second use is recognised).
func (ps *pendingSet) addCode(hash string, c *authCode) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := ps.now()
	if len(ps.codes) >= maxPending {
		for h, old := range ps.codes {
			if now.After(old.expires.Add(codeTTL)) {
				delete(ps.codes, h)
			}
		}
	}
	if len(ps.codes) < maxPending {
		ps.codes[hash] = c
	}
}

// useCode returns the code and whether it was used before (marking it used).
func (ps *pendingSet) useCode(hash string) (c authCode, ok, usedBefore bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.codes[hash]
	if !ok {
		return authCode{}, false, false
	}
	usedBefore = p.used
	p.used = true
	return *p, true, usedBefore
}

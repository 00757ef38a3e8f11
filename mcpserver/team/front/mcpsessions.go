package front

import (
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// mcpSessions binds each MCP session (2025-11-25 era: its Mcp-Session-Id) to the user whose bearer
// token opened it. A session carries the server's requests to the host (a question's form) and the
// host's answers: another user's token that shows the session's id finds no such session (404, the
// transport's answer to an unknown session), so it can neither listen to the session's stream,
// answer its forms, send in it nor end it. An id this process did not open (it restarted, or the id
// was never issued) is no one's: it is answered 404 too, and the client initializes a new session,
// as the transport says it must. An id is never adopted by whoever shows it first.
type mcpSessions struct {
	now  func() time.Time
	idle time.Duration // an id unseen this long is forgotten when room is needed

	mu    sync.Mutex
	owner map[string]sessionOwner
}

type sessionOwner struct {
	user string
	seen time.Time
}

// maxMCPSessions bounds the ids remembered (the stalest are forgotten first).
const maxMCPSessions = 100_000

func newMCPSessions(now func() time.Time, idle time.Duration) *mcpSessions {
	return &mcpSessions{now: now, idle: idle, owner: map[string]sessionOwner{}}
}

// bind records a session id this process minted as user's.
func (s *mcpSessions) bind(id, user string) {
	if user == "" {
		return
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.owner[id]; !ok && len(s.owner) >= maxMCPSessions {
		s.makeRoom(now)
	}
	s.owner[id] = sessionOwner{user: user, seen: now}
}

// owns says whether session id was minted here for user (and marks it seen).
func (s *mcpSessions) owns(id, user string) bool {
	if user == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owner[id]
	if !ok || o.user != user {
		return false
	}
	o.seen = s.now()
	s.owner[id] = o
	return true
}

// makeRoom forgets the ids unseen for the idle period, or else the stalest one.
func (s *mcpSessions) makeRoom(now time.Time) {
	oldest, at := "", now
	for id, o := range s.owner {
		if now.Sub(o.seen) >= s.idle {
			delete(s.owner, id)
			continue
		}
		if !o.seen.After(at) {
			oldest, at = id, o.seen
		}
	}
	if len(s.owner) >= maxMCPSessions {
		delete(s.owner, oldest)
	}
}

func (s *mcpSessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.owner, id)
}

// guard answers 404 to a request in a session this process did not open for the request's user
// (another user's, a forgotten one, one from before a restart, a made-up one); it runs behind the
// bearer check, with the request's user in its context.
func (s *mcpSessions) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && !s.owns(id, userOf(r.Context()).Key()) {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ResolveSessionIdManager is mcp-go's hook: the ids it mints for a request are bound to the
// request's user; an id it ends (DELETE, idle, shutdown) is forgotten.
//
//lint:ignore ST1003 the name is mcp-go's (server.SessionIdManagerResolver)
func (s *mcpSessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	m := &sessionIDs{s: s}
	if r != nil {
		m.user = userOf(r.Context()).Key()
	}
	return m
}

// sessionIDs is mcp-go's id manager (ids that carry no state, checked for form) with the binding.
type sessionIDs struct {
	server.StatelessGeneratingSessionIdManager
	s    *mcpSessions
	user string
}

func (m *sessionIDs) Generate() string {
	id := m.StatelessGeneratingSessionIdManager.Generate()
	m.s.bind(id, m.user)
	return id
}

func (m *sessionIDs) Terminate(id string) (bool, error) {
	m.s.forget(id)
	return false, nil
}

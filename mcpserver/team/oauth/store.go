package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// store keeps what must outlive a restart: the registered clients and, per grant (a family: one
// sign-in of one person in one client, and every token its refreshes produced), the hashes of its
// tokens. No token is ever written, only its SHA-256: the file gives nobody access.
type store struct {
	path string

	mu   sync.Mutex
	data storeData
}

type storeData struct {
	Version  int                   `json:"version"`
	Clients  map[string]*regClient `json:"clients"`
	Families map[string]*family    `json:"families"`
	// Tokens are keyed by the hex SHA-256 of the token.
	Tokens map[string]*tokenRec `json:"tokens"`
}

// family is one grant: who, to which client, for which resource; revoked ends every token of it.
type family struct {
	User     Identity  `json:"user"`
	Client   string    `json:"client"`
	Resource string    `json:"resource"`
	Scope    string    `json:"scope"`
	Created  time.Time `json:"created"`
	Revoked  bool      `json:"revoked,omitempty"`
}

type tokenKind string

const (
	kindAccess  tokenKind = "access"
	kindRefresh tokenKind = "refresh"
)

type tokenRec struct {
	Family  string    `json:"family"`
	Kind    tokenKind `json:"kind"`
	Expires time.Time `json:"expires"`
	// Used marks a refresh token already exchanged: shown again, it revokes its family.
	Used bool `json:"used,omitempty"`
}

const storeVersion = 1

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// openStore reads the file, or starts an empty one when there is none yet.
func openStore(path string) (*store, error) {
	s := &store{path: path, data: storeData{Version: storeVersion}}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("oauth: read the token store: %w", err)
	default:
		if err := json.Unmarshal(raw, &s.data); err != nil {
			return nil, fmt.Errorf("oauth: the token store %s is not valid JSON: %w", path, err)
		}
		if s.data.Version != storeVersion {
			return nil, fmt.Errorf("oauth: the token store %s is version %d, this prmonitor reads %d", path, s.data.Version, storeVersion)
		}
	}
	if s.data.Clients == nil {
		s.data.Clients = map[string]*regClient{}
	}
	if s.data.Families == nil {
		s.data.Families = map[string]*family{}
	}
	if s.data.Tokens == nil {
		s.data.Tokens = map[string]*tokenRec{}
	}
	return s, nil
}

// saveLocked prunes what has expired and writes the file (a temporary file renamed over it, so a
// crash leaves the old file or the new one). The caller holds mu.
func (s *store) saveLocked(now time.Time) error {
	live := map[string]bool{}
	for h, t := range s.data.Tokens {
		if now.After(t.Expires) {
			delete(s.data.Tokens, h)
			continue
		}
		live[t.Family] = true
	}
	for id := range s.data.Families {
		if !live[id] {
			delete(s.data.Families, id)
		}
	}
	raw, err := json.Marshal(&s.data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("oauth: the token store's directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".oauth-store-*")
	if err != nil {
		return fmt.Errorf("oauth: write the token store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: write the token store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: write the token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth: write the token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("oauth: write the token store: %w", err)
	}
	return nil
}

// update runs fn under the lock and saves when it changed something.
func (s *store) update(now time.Time, fn func(d *storeData) (changed bool, err error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed, err := fn(&s.data)
	if changed {
		if serr := s.saveLocked(now); serr != nil {
			return errors.Join(err, serr)
		}
	}
	return err
}

// view runs fn under the lock without saving.
func (s *store) view(fn func(d *storeData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.data)
}

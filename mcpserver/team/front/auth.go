package front

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Users are the people the front end serves: per line of the tokens file, a user (their GitHub
// login: a user owns the monitors of their own pull requests) and the hex SHA-256 of their bearer
// token. The file holds no token, only its hash.
type Users struct {
	entries []user
}

type user struct {
	name string
	hash [sha256.Size]byte
}

// LoadUsers reads the tokens file.
func LoadUsers(path string) (*Users, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the tokens file: %w", err)
	}
	defer f.Close()
	u, err := ParseUsers(f)
	if err != nil {
		return nil, fmt.Errorf("the tokens file %s: %w", path, err)
	}
	return u, nil
}

// ParseUsers reads lines of "USER SHA256HEX"; blank lines and lines starting with # are skipped.
// A malformed line, a user named twice or a hash given twice is an error naming the line.
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{}
	names, hashes := map[string]bool{}, map[[sha256.Size]byte]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want USER SHA256HEX, two fields", n)
		}
		if !ghclient.ValidLogin(f[0]) {
			return nil, fmt.Errorf("line %d: the user must be a GitHub login (letters, digits, single hyphens)", n)
		}
		raw, err := hex.DecodeString(f[1])
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("line %d: the second field must be the 64 hex digits of the token's SHA-256 (sha256sum), not the token", n)
		}
		e := user{name: strings.ToLower(f[0])}
		copy(e.hash[:], raw)
		switch {
		case names[e.name]:
			return nil, fmt.Errorf("line %d: user %s is named twice", n, e.name)
		case hashes[e.hash]:
			return nil, fmt.Errorf("line %d: that token hash is another user's too", n)
		}
		names[e.name], hashes[e.hash] = true, true
		u.entries = append(u.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(u.entries) == 0 {
		return nil, errors.New("no users: add a line USER SHA256HEX per user")
	}
	return u, nil
}

// check returns the user whose token this is. Every entry is compared, in constant time, so the
// time taken says nothing about which hash came close.
func (u *Users) check(token string) (string, bool) {
	if u == nil || token == "" {
		return "", false
	}
	h := sha256.Sum256([]byte(token))
	found := ""
	for _, e := range u.entries {
		if subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 {
			found = e.name
		}
	}
	return found, found != ""
}

// has reports whether name is (still) a user.
func (u *Users) has(name string) bool {
	if u == nil {
		return false
	}
	for _, e := range u.entries {
		if e.name == name {
			return true
		}
	}
	return false
}

type userKey struct{}

// withUser is ctx carrying the authenticated user.
func withUser(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, userKey{}, name)
}

// userOf is the authenticated user a handler serves ("" when none: never for a tool call, which
// the middleware lets through only with one).
func userOf(ctx context.Context) string {
	name, _ := ctx.Value(userKey{}).(string)
	return name
}

// unauthorized is RFC 6750's answer to a missing or unknown bearer token.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="prmonitor"`)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "unauthorized: send Authorization: Bearer TOKEN with a token this deployment knows", http.StatusUnauthorized)
}

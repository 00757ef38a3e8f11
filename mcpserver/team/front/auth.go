package front

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Users are the people the front end serves by a bearer token (headless agents): per line of
// the tokens file, a user's GitHub login, the hex SHA-256 of their bearer token and their GitHub
// user id. A user owns the monitors of their own pull requests by the id (monitorwf.Owner), as a
// sign-in with GitHub does: the operator records it once (GET /users/LOGIN's "id"), so a renamed
// login keeps its monitors and a recycled one gets none of them. The file holds no token, only
// its hash.
type Users struct {
	entries []user
}

type user struct {
	who  monitorwf.Owner
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

// usersLine is the tokens file's line, as errors name it.
const usersLine = "LOGIN SHA256HEX GITHUB_USER_ID"

// ParseUsers reads lines of "LOGIN SHA256HEX GITHUB_USER_ID"; blank lines and lines starting with
// # are skipped. A malformed line, a user (login or id) named twice or a hash given twice is an
// error naming the line.
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{}
	names, ids, hashes := map[string]bool{}, map[int64]bool{}, map[[sha256.Size]byte]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) == 2 {
			return nil, fmt.Errorf("line %d: the user's GitHub user id is missing: want %s (the id is GET /users/LOGIN's \"id\", e.g. gh api users/%s --jq .id)",
				n, usersLine, quoteLogin(f[0]))
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want %s, three fields", n, usersLine)
		}
		if !ghclient.ValidLogin(f[0]) {
			return nil, fmt.Errorf("line %d: the user must be a GitHub login (letters, digits, single hyphens)", n)
		}
		raw, err := hex.DecodeString(f[1])
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("line %d: the second field must be the 64 hex digits of the token's SHA-256 (sha256sum), not the token", n)
		}
		id, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("line %d: the third field must be the user's GitHub user id (a positive number)", n)
		}
		e := user{who: monitorwf.Owner{ID: id, Login: f[0]}}
		copy(e.hash[:], raw)
		name := monitorwf.NormalizeOwner(f[0])
		switch {
		case names[name]:
			return nil, fmt.Errorf("line %d: user %s is named twice", n, name)
		case ids[id]:
			return nil, fmt.Errorf("line %d: GitHub user id %d is named twice", n, id)
		case hashes[e.hash]:
			return nil, fmt.Errorf("line %d: that token hash is another user's too", n)
		}
		names[name], ids[id], hashes[e.hash] = true, true, true
		u.entries = append(u.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(u.entries) == 0 {
		return nil, fmt.Errorf("no users: add a line %s per user", usersLine)
	}
	return u, nil
}

// quoteLogin is a login for an error's example, or LOGIN when it is not one.
func quoteLogin(s string) string {
	if ghclient.ValidLogin(s) {
		return s
	}
	return "LOGIN"
}

// check returns the user whose token this is. Every entry is compared, in constant time, so the
// time taken says nothing about which hash came close.
func (u *Users) check(token string) (monitorwf.Owner, bool) {
	if u == nil || token == "" {
		return monitorwf.Owner{}, false
	}
	h := sha256.Sum256([]byte(token))
	var found monitorwf.Owner
	for _, e := range u.entries {
		if subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 {
			found = e.who
		}
	}
	return found, found.ID > 0
}

// has reports whether GitHub user id is (still) a user of the file.
func (u *Users) has(id int64) bool {
	if u == nil || id <= 0 {
		return false
	}
	for _, e := range u.entries {
		if e.who.ID == id {
			return true
		}
	}
	return false
}

type userKey struct{}

// withUser is ctx carrying the authenticated user.
func withUser(ctx context.Context, who monitorwf.Owner) context.Context {
	return context.WithValue(ctx, userKey{}, who)
}

// userOf is the authenticated user a handler serves (none, Owner{}, never for a tool call, which
// the middleware lets through only with one).
func userOf(ctx context.Context) monitorwf.Owner {
	who, _ := ctx.Value(userKey{}).(monitorwf.Owner)
	return who
}

// unauthorized is RFC 6750's answer to a missing or unknown bearer token.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="prmonitor"`)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "unauthorized: send Authorization: Bearer TOKEN with a token this deployment knows", http.StatusUnauthorized)
}

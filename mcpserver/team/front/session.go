package front

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
)

// signer signs what the front end hands out and takes back: the board's session cookie and the
// request state of a question put to a 2026-07-28 client. Its key is derived from the
// deployment's auth key (Config.AuthKey), so every replica reads what any of them signed and a
// restart ends nothing. Without an auth key it is drawn when the process starts and never leaves
// it: a restart ends every board session and every unanswered question's state, and several
// replicas need sticky routing (docs/deploy.md).
type signer struct {
	key []byte
	now func() time.Time
}

func newSigner(now func() time.Time, authKey []byte) (*signer, error) {
	if len(authKey) > 0 {
		return &signer{key: oauth.DeriveKey(authKey, "board"), now: now}, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("a signing key: %w", err)
	}
	return &signer{key: key, now: now}, nil
}

// sealed is a signed value: what it is for, whom, until when, and its content.
type sealed struct {
	Purpose string          `json:"p"`
	User    string          `json:"u"`
	Expires int64           `json:"e"`
	Value   json.RawMessage `json:"v,omitempty"`
}

var errBadSeal = errors.New("not issued by this server, or expired")

func (s *signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// sign returns v signed for purpose and user, valid for ttl.
func (s *signer) sign(purpose, user string, ttl time.Duration, v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(sealed{Purpose: purpose, User: user, Expires: s.now().Add(ttl).Unix(), Value: raw})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload)), nil
}

// open checks a signed value for purpose and returns its user, decoding its content into v.
func (s *signer) open(token, purpose string, v any) (string, error) {
	enc := base64.RawURLEncoding
	p64, m64, ok := strings.Cut(token, ".")
	payload, err1 := enc.DecodeString(p64)
	mac, err2 := enc.DecodeString(m64)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(payload)) {
		return "", errBadSeal
	}
	var st sealed
	if err := json.Unmarshal(payload, &st); err != nil || st.Purpose != purpose || s.now().Unix() > st.Expires {
		return "", errBadSeal
	}
	if v != nil && len(st.Value) > 0 {
		if err := json.Unmarshal(st.Value, v); err != nil {
			return "", errBadSeal
		}
	}
	return st.User, nil
}

// The board's session: after a POST /login that carries a known bearer token (or a sign-in with
// GitHub at /signin/github), a cookie
// (HttpOnly, SameSite=Strict, Secure over HTTPS) lets the page's fetches and its event stream
// through; EventSource cannot send an Authorization header, and the token itself never goes into
// a URL, a cookie or the page's storage.
const (
	cookieSecure = "__Host-prmonitor-board"
	cookiePlain  = "prmonitor-board"
	purposeBoard = "board"
)

// secure: the request came over HTTPS: directly, or, behind a TLS proxy the operator named
// (Config.BehindTLSProxy), through one that says so.
func (f *Front) secure(r *http.Request) bool {
	return r.TLS != nil || (f.cfg.BehindTLSProxy && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

// boardSession is what the board's cookie carries beside its user (monitorwf.Owner.String): its
// id (what sign-out revokes), its end, and how the person signed in (a token of the tokens file,
// or GitHub), checked again at every request: the file still names the id, or GitHub's user id
// may still sign in.
type boardSession struct {
	ID     string `json:"id"`
	Until  int64  `json:"until"`
	Tokens bool   `json:"tokens,omitempty"`
}

// signIn serves POST /login.
func (f *Front) signIn(w http.ResponseWriter, r *http.Request) {
	who, err := f.bearerUser(r)
	if err != nil {
		f.unauthorized(w, err)
		return
	}
	_, viaTokens := f.users.check(bearerToken(r))
	if err := f.setBoardCookie(w, r, who, viaTokens); err != nil {
		http.Error(w, "could not sign in", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// setBoardCookie gives the browser a new board session of who (signed in by a token of the tokens
// file, or with GitHub).
func (f *Front) setBoardCookie(w http.ResponseWriter, r *http.Request, who monitorwf.Owner, viaTokens bool) error {
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	sess := boardSession{ID: base64.RawURLEncoding.EncodeToString(id), Until: f.cfg.Now().Add(f.cfg.SessionTTL).Unix(), Tokens: viaTokens}
	value, err := f.signer.sign(purposeBoard, who.String(), f.cfg.SessionTTL, sess)
	if err != nil {
		return err
	}
	c := &http.Cookie{Name: cookiePlain, Value: value, Path: "/", MaxAge: int(f.cfg.SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode}
	if f.secure(r) {
		c.Name, c.Secure = cookieSecure, true
	}
	http.SetCookie(w, c)
	w.Header().Set("Cache-Control", "no-store")
	return nil
}

// signOut serves POST /logout: the session is revoked here (the same cookie, kept or copied,
// reads nothing more, and the live streams it opened end at their next look) and the browser is
// told to drop the cookie.
func (f *Front) signOut(w http.ResponseWriter, r *http.Request) {
	for _, n := range []string{cookieSecure, cookiePlain} {
		if sess, _, ok := f.boardSession(r, n); ok {
			if err := f.revokeBoard(r.Context(), sess.ID, time.Unix(sess.Until, 0)); err != nil {
				f.cfg.Logger.Error("board: record a sign-out", "err", err)
				http.Error(w, "could not sign out now; try again", http.StatusServiceUnavailable)
				return
			}
		}
	}
	for _, c := range []*http.Cookie{{Name: cookiePlain, Path: "/"}, {Name: cookieSecure, Path: "/", Secure: true}} {
		c.MaxAge, c.HttpOnly, c.SameSite = -1, true, http.SameSiteStrictMode
		http.SetCookie(w, c)
	}
	w.WriteHeader(http.StatusNoContent)
}

// boardUser is the user of a board request: a bearer token, or a session cookie of a user the
// tokens file still names (or, signed in with GitHub, whose GitHub user id is still allowed).
func (f *Front) boardUser(r *http.Request) (string, bool) {
	if who, err := f.bearerUser(r); err == nil {
		return who.String(), true
	}
	for _, n := range []string{cookieSecure, cookiePlain} {
		if sess, user, ok := f.boardSession(r, n); ok {
			if who, ok := monitorwf.ParseOwner(user); ok && f.stillUser(who, sess.Tokens) {
				return user, true
			}
		}
	}
	return "", false
}

// boardSession is the session of r's cookie named name, when this process issued it and it was
// not revoked.
func (f *Front) boardSession(r *http.Request, name string) (boardSession, string, bool) {
	c, err := r.Cookie(name)
	if err != nil {
		return boardSession{}, "", false
	}
	var sess boardSession
	user, err := f.signer.open(c.Value, purposeBoard, &sess)
	if err != nil || sess.ID == "" || f.boardRevoked(r.Context(), sess.ID) {
		return boardSession{}, "", false
	}
	return sess, user, true
}

// boardName is the name the board shows for its user (monitorwf.Owner.String): the login.
func boardName(user string) string {
	if who, ok := monitorwf.ParseOwner(user); ok {
		return who.Login
	}
	return user
}

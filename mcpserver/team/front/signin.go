package front

import (
	"net/http"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
)

// Who may call /mcp and read the board: a person signed in with GitHub (an access token of this
// deployment's own authorization server, package oauth), or, for headless agents, a bearer token
// of the tokens file. Either, or both, may be configured.

// bearerUser is the user of a request's Authorization: Bearer header: a token of the tokens file,
// or an access token this deployment issued (for this resource, unexpired, unrevoked).
func (f *Front) bearerUser(r *http.Request) (monitorwf.Owner, error) {
	token := bearerToken(r)
	if token == "" {
		return monitorwf.Owner{}, errNoToken
	}
	if who, ok := f.users.check(token); ok {
		return who, nil
	}
	if f.oauth == nil {
		return monitorwf.Owner{}, errNoToken
	}
	who, err := f.oauth.Verify(r.Context(), token)
	if err != nil {
		return monitorwf.Owner{}, err
	}
	return monitorwf.Owner{ID: who.ID, Login: who.Login}, nil
}

// bearerToken is the token of r's Authorization: Bearer header ("" when none).
func bearerToken(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

type errString string

func (e errString) Error() string { return string(e) }

const errNoToken = errString("no bearer token this deployment knows")

// requireUser answers 401 to a request without a user; others go on with their user in the
// context. The token is never logged.
func (f *Front) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, err := f.bearerUser(r)
		if err != nil {
			f.unauthorized(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(withUser(r.Context(), who)))
	})
}

// unauthorized is the 401 of a request without a good token: with sign-in by GitHub, its
// WWW-Authenticate names the resource metadata, where a host finds how to get one (RFC 9728).
func (f *Front) unauthorized(w http.ResponseWriter, err error) {
	if f.oauth == nil {
		unauthorized(w)
		return
	}
	if err == errNoToken {
		err = nil
	}
	w.Header().Set("WWW-Authenticate", f.oauth.Challenge(err))
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "unauthorized: sign in (your MCP host does it with this server's OAuth metadata) or send a bearer token this deployment knows", http.StatusUnauthorized)
}

// stillUser says whether the person of a board session may still use the deployment: by the
// tokens file (viaTokens), or by sign-in with GitHub.
func (f *Front) stillUser(who monitorwf.Owner, viaTokens bool) bool {
	if viaTokens {
		return f.users.has(who.ID)
	}
	return f.oauth != nil && f.oauth.Allowed(oauth.Identity{ID: who.ID, Login: who.Login})
}

// boardSignedIn ends the board's sign-in with GitHub: the session cookie, and back to the board.
func (f *Front) boardSignedIn(w http.ResponseWriter, r *http.Request, who oauth.Identity) {
	if err := f.setBoardCookie(w, r, monitorwf.Owner{ID: who.ID, Login: who.Login}, false); err != nil {
		http.Error(w, "could not sign in", http.StatusInternalServerError)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// mountOAuth serves the sign-in's routes on mux.
func (f *Front) mountOAuth(mux *http.ServeMux) {
	if f.oauth == nil {
		return
	}
	h := f.oauth.Handler()
	for _, p := range oauth.Routes(f.oauth.ResourcePath()) {
		mux.Handle(p, h)
	}
}

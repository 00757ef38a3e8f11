package oauth

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// Scope is the one scope this server grants: using the deployment's tools and board as oneself.
const Scope = "prmonitor"

// Server is the authorization server, and the resource server's token check.
type Server struct {
	cfg    Config
	sealer *sealer
	cimd   *cimdCache
	github *oauth2.Config
}

// New returns the server.
func New(cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	sl, err := newSealer(cfg.Key)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, sealer: sl, cimd: newCIMDCache(cfg.Now, cfg.LoopbackClients)}
	s.github = &oauth2.Config{
		ClientID: cfg.GitHub.ClientID, ClientSecret: cfg.GitHub.ClientSecret, RedirectURL: s.CallbackURL(),
		Endpoint: oauth2.Endpoint{AuthURL: cfg.GitHub.WebURL + "/login/oauth/authorize", TokenURL: cfg.GitHub.WebURL + "/login/oauth/access_token",
			AuthStyle: oauth2.AuthStyleInParams},
	}
	return s, nil
}

// Handler serves the metadata, the authorization server's endpoints and the board's sign-in.
// Mount it at the root of the deployment's address (each route is its own path).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+pathResourceMeta, s.resourceMeta)
	mux.HandleFunc("GET "+pathResourceMeta+s.cfg.ResourcePath, s.resourceMeta)
	mux.HandleFunc("GET "+pathServerMeta, s.serverMeta)
	mux.HandleFunc("GET "+pathAuthorize, s.authorize)
	mux.HandleFunc("POST "+pathConsent, s.consent)
	mux.HandleFunc("GET "+pathCallback, s.callback)
	mux.HandleFunc("POST "+pathToken, s.token)
	mux.HandleFunc("POST "+pathRegister, s.register)
	mux.HandleFunc("POST "+pathRevoke, s.revoke)
	mux.HandleFunc("GET "+PathBoardSignIn, s.boardSignIn)
	return mux
}

// Routes are the paths Handler serves, for a mux in front of it.
func Routes(resourcePath string) []string {
	if resourcePath == "" {
		resourcePath = "/mcp"
	}
	return []string{pathResourceMeta, pathResourceMeta + resourcePath, pathServerMeta, pathAuthorize, pathConsent, pathCallback,
		pathToken, pathRegister, pathRevoke, PathBoardSignIn}
}

// Challenge is the WWW-Authenticate header of a 401 from the resource: where its metadata is.
func (s *Server) Challenge(err error) string {
	v := `Bearer resource_metadata="` + s.ResourceMetadataURL() + `", scope="` + Scope + `"`
	if err != nil {
		v += `, error="invalid_token", error_description="` + strings.ReplaceAll(err.Error(), `"`, `'`) + `"`
	}
	return v
}

// resourceMeta serves RFC 9728's metadata.
func (s *Server) resourceMeta(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource": s.Resource(), "authorization_servers": []string{s.cfg.Issuer}, "scopes_supported": []string{Scope},
		"bearer_methods_supported": []string{"header"}, "resource_name": "prmonitor",
	})
}

// serverMeta serves RFC 8414's metadata.
func (s *Server) serverMeta(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	iss := s.cfg.Issuer
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": iss, "authorization_endpoint": iss + pathAuthorize, "token_endpoint": iss + pathToken,
		"registration_endpoint": iss + pathRegister, "revocation_endpoint": iss + pathRevoke,
		"scopes_supported": []string{Scope}, "response_types_supported": []string{"code"},
		"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"}, "revocation_endpoint_auth_methods_supported": []string{"none"},
		"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true,
	})
}

// revoke serves RFC 7009's POST: the token's whole sign-in ends; an unknown token is answered 200.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if err := s.Revoke(r.Context(), r.PostForm.Get("token")); err != nil {
		s.cfg.Logger.Error("oauth: revoke", "err", err)
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "could not revoke the token now")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

const maxForm = 64 << 10

// parseForm reads a urlencoded body of at most 64 KiB.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"server_error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeJSONError is OAuth's error answer (RFC 6749 §5.2).
func writeJSONError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// regClient is a client as this server knows it: registered here (RFC 7591) or described by its
// Client ID Metadata Document. Every client is public: it proves itself by PKCE, not a secret.
type regClient struct {
	ID           string    `json:"client_id,omitempty"`
	Name         string    `json:"client_name,omitempty"`
	RedirectURIs []string  `json:"redirect_uris"`
	Created      time.Time `json:"created"`
}

// clientMeta is what a registration or a metadata document says about a client (the fields
// this server reads).
type clientMeta struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
}

const (
	maxClientMeta   = 64 << 10
	maxRedirectURIs = 20
	maxRedirectURI  = 1024
	maxClientName   = 200
	// maxClientID bounds a registered client's id (its sealed registration): it travels in the
	// authorization request's URL and the sign-in's cookie.
	maxClientID = 3000
	cimdTTL     = 10 * time.Minute
)

// check says what is wrong with the metadata, "" when nothing.
func (m *clientMeta) check() string {
	switch {
	case len(m.RedirectURIs) == 0:
		return "redirect_uris is required"
	case len(m.RedirectURIs) > maxRedirectURIs:
		return fmt.Sprintf("at most %d redirect_uris", maxRedirectURIs)
	case m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none":
		return "only public clients (token_endpoint_auth_method none, with PKCE) are served"
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "grant type " + g + " is not served (authorization_code and refresh_token are)"
		}
	}
	for _, r := range m.ResponseTypes {
		if r != "code" {
			return "response type " + r + " is not served (code is)"
		}
	}
	for _, u := range m.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return why
		}
	}
	if len(m.ClientName) > maxClientName {
		m.ClientName = m.ClientName[:maxClientName]
	}
	return ""
}

// checkRedirectURI refuses what a code must never be sent to: a relative URI, one with a
// fragment, plain http off loopback, and schemes that run or embed content.
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > maxRedirectURI:
		return fmt.Sprintf("redirect URI %s is longer than %d characters", quoteShort(raw), maxRedirectURI)
	case err != nil || !u.IsAbs():
		return "redirect URI " + quoteShort(raw) + " is not an absolute URI"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "redirect URI " + quoteShort(raw) + " has a fragment"
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return "redirect URI " + quoteShort(raw) + " is plain http off loopback"
	case slices.Contains([]string{"javascript", "data", "file", "vbscript", "blob", "about", "ws", "wss"}, strings.ToLower(u.Scheme)):
		return "redirect URI " + quoteShort(raw) + " has a scheme a code may not be sent to"
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return "redirect URI " + quoteShort(raw) + " has no host"
	}
	return ""
}

func quoteShort(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// redirectMatches says whether the redirect URI of a request is one the client registered:
// exactly the same string, except that a loopback http URI may come with another port (RFC 8252
// §7.3: a native app listens on whatever port it was given).
func redirectMatches(registered []string, got string) bool {
	if slices.Contains(registered, got) {
		return true
	}
	g, err := url.Parse(got)
	if err != nil || g.Scheme != "http" || !loopbackHost(g.Hostname()) {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" || !loopbackHost(u.Hostname()) {
			continue
		}
		if u.Hostname() == g.Hostname() && u.EscapedPath() == g.EscapedPath() && u.RawQuery == g.RawQuery && g.User == nil && u.Fragment == "" && g.Fragment == "" {
			return true
		}
	}
	return false
}

// loopbackHost: 127.0.0.0/8, ::1 or localhost.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// register serves RFC 7591's POST: open to anyone (hosts register themselves), bounded in size; a
// client that asks for a secret is registered as a public one (RFC 7591 §3.2.1 lets the server
// say what it registered). The registration is sealed into the client id it answers, so it costs
// no storage, a flood of them fills nothing, and every replica reads it.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var m clientMeta
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxClientMeta)).Decode(&m); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata")
		return
	}
	m.TokenEndpointAuthMethod = ""
	if why := m.check(); why != "" {
		code := "invalid_client_metadata"
		if strings.HasPrefix(why, "redirect") {
			code = "invalid_redirect_uri"
		}
		writeJSONError(w, http.StatusBadRequest, code, why)
		return
	}
	c := &regClient{Name: m.ClientName, RedirectURIs: slices.Clone(m.RedirectURIs), Created: s.cfg.Now()}
	sealed, err := s.sealer.seal(sealClient, c)
	if err != nil {
		s.cfg.Logger.Error("oauth: register a client", "err", err)
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "could not register the client now")
		return
	}
	if c.ID = prefixClient + sealed; len(c.ID) > maxClientID {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata",
			fmt.Sprintf("the registration is too large (its redirect URIs and name come to more than %d bytes)", maxClientID*3/4))
		return
	}
	grants := m.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": c.ID, "client_id_issued_at": c.Created.Unix(), "client_name": c.Name, "redirect_uris": c.RedirectURIs,
		"grant_types": grants, "response_types": []string{"code"}, "token_endpoint_auth_method": "none",
	})
}

// client finds a client by id: registered here, or a metadata document at the id's URL.
func (s *Server) client(ctx context.Context, id string) (*regClient, error) {
	if strings.HasPrefix(id, "https://") || (s.cfg.LoopbackClients && strings.HasPrefix(id, "http://")) {
		return s.cimd.get(ctx, id)
	}
	var c regClient
	sealed, ok := strings.CutPrefix(id, prefixClient)
	if !ok || len(id) > maxClientID || s.sealer.open(sealClient, sealed, &c) != nil {
		return nil, errors.New("unknown client_id")
	}
	c.ID = id
	return &c, nil
}

// cimdCache fetches Client ID Metadata Documents and keeps each a few minutes.
type cimdCache struct {
	http     *http.Client
	now      func() time.Time
	loopback bool

	mu   sync.Mutex
	docs map[string]cimdEntry
}

type cimdEntry struct {
	c       *regClient
	fetched time.Time
}

const maxCIMDCache = 1000

func newCIMDCache(now func() time.Time, loopback bool) *cimdCache {
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		return publicAddress(net.ParseIP(host), loopback)
	}}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: 5 * time.Second, ResponseHeaderTimeout: 5 * time.Second,
		MaxIdleConns: 10, IdleConnTimeout: 30 * time.Second}
	return &cimdCache{now: now, loopback: loopback, docs: map[string]cimdEntry{}, http: &http.Client{
		Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("a client id document is not fetched through a redirect")
		},
	}}
}

// publicAddress refuses an address inside a network (loopback, private, link-local, unspecified),
// checked at dial time so a name that resolves there later cannot slip by. loopback lets tests
// use 127.0.0.1.
func publicAddress(ip net.IP, loopback bool) error {
	switch {
	case ip == nil:
		return errors.New("not an IP address")
	case ip.IsLoopback() && loopback:
		return nil
	case ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast():
		return fmt.Errorf("a client id document is not fetched from the internal address %s", ip)
	}
	return nil
}

// get returns the client the document at id describes. The document must name itself (its
// client_id is id) and be a public client's.
func (c *cimdCache) get(ctx context.Context, id string) (*regClient, error) {
	u, err := url.Parse(id)
	if err != nil || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return nil, errors.New("a client_id URL needs a host and a path, and no fragment or credentials")
	}
	if u.Scheme == "http" && !(c.loopback && loopbackHost(u.Hostname())) {
		return nil, errors.New("a client_id URL must be https")
	}
	now := c.now()
	c.mu.Lock()
	e, ok := c.docs[id]
	c.mu.Unlock()
	if ok && now.Sub(e.fetched) < cimdTTL {
		return e.c, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the client's metadata document: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch the client's metadata document: HTTP %d", res.StatusCode)
	}
	var m clientMeta
	if err := json.NewDecoder(io.LimitReader(res.Body, maxClientMeta)).Decode(&m); err != nil {
		return nil, errors.New("the client's metadata document is not a JSON object (or is over 64 KiB)")
	}
	if m.ClientID != id {
		return nil, errors.New("the client's metadata document names another client_id")
	}
	if why := m.check(); why != "" {
		return nil, errors.New("the client's metadata document: " + why)
	}
	rc := &regClient{ID: id, Name: m.ClientName, RedirectURIs: m.RedirectURIs, Created: now}
	c.mu.Lock()
	if len(c.docs) >= maxCIMDCache {
		clear(c.docs)
	}
	c.docs[id] = cimdEntry{c: rc, fetched: now}
	c.mu.Unlock()
	return rc, nil
}

package worker

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// appServer is GitHub's App API: it checks the App's JWT and hands out installation tokens,
// the first expiring within the renewal margin.
type appServer struct {
	mu     sync.Mutex
	key    *rsa.PrivateKey
	issued []string
	seen   []string // Authorization headers of API calls
}

func (s *appServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost && r.URL.Path == "/app/installations/42/access_tokens" {
		raw := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		claims := &jwt.RegisteredClaims{}
		_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return &s.key.PublicKey, nil })
		if err != nil || claims.Issuer != "7" {
			http.Error(w, `{"message":"bad JWT"}`, http.StatusUnauthorized)
			return
		}
		tok := "ghs_installation" + strings.Repeat("x", len(s.issued)+1)
		expires := time.Now().Add(time.Hour)
		if len(s.issued) == 0 {
			expires = time.Now().Add(30 * time.Second) // inside the one-minute renewal margin
		}
		s.issued = append(s.issued, tok)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"token": tok, "expires_at": expires.UTC().Format(time.RFC3339)})
		return
	}
	s.seen = append(s.seen, r.Header.Get("Authorization"))
	_, _ = w.Write([]byte(`{"rate":{"limit":5000,"remaining":4999}}`))
}

func newApp(t *testing.T, key *rsa.PrivateKey, srv *httptest.Server) App {
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return App{AppID: 7, InstallationID: 42, PrivateKey: pemKey, RESTURL: srv.URL,
		NewClient: func(tok ghclient.Token) (*ghclient.Client, error) {
			return ghclient.New(ghclient.Config{RESTURL: srv.URL, Token: tok})
		}}
}

func TestAGitHubAppsInstallationTokenIsRenewedBeforeItExpiresAndUsedForRequests(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	as := &appServer{key: key}
	srv := httptest.NewServer(as)
	defer srv.Close()
	gh, err := newApp(t, key, srv).GitHub()
	require.NoError(t, err)
	ctx := context.Background()

	c1, err := gh(ctx)
	require.NoError(t, err)
	c2, err := gh(ctx)
	require.NoError(t, err)
	c3, err := gh(ctx)
	require.NoError(t, err)
	assert.NotSame(t, c1, c2, "the first token expired within the margin: a new token, a new client")
	assert.Same(t, c2, c3, "the second token is good for an hour: reused")
	assert.Len(t, as.issued, 2)

	_, _, err = c3.REST().RateLimit.Get(ctx)
	require.NoError(t, err)
	require.Len(t, as.seen, 1)
	assert.Contains(t, as.seen[0], as.issued[1], "requests carry the current installation token")
}

func TestAnAppWhoseKeyGitHubRefusesGetsAnAuthorizationError(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	srv := httptest.NewServer(&appServer{key: other})
	defer srv.Close()
	gh, err := newApp(t, key, srv).GitHub()
	require.NoError(t, err)
	_, err = gh(context.Background())
	require.ErrorIs(t, err, ghclient.ErrUnauthorized)
	assert.Contains(t, err.Error(), "installation 42")
}

func TestAnAppKeyThatIsNoKeyIsRefusedAtStart(t *testing.T) {
	_, err := App{AppID: 7, InstallationID: 42, PrivateKey: []byte("not a key")}.GitHub()
	assert.ErrorContains(t, err, "private key")
}

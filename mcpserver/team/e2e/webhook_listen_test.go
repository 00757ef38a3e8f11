package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheWorkersWebhookServesHTTPSAndOnlyItsOwnHostNames: with --tls-cert, --tls-key and
// --allowed-hosts the built worker's webhook answers over TLS; a signed delivery addressed to a
// name it was not given is 403 before it is read, one to its own name is taken, and the probe
// answers whatever the Host. Plain HTTP is not served.
func TestTheWorkersWebhookServesHTTPSAndOnlyItsOwnHostNames(t *testing.T) {
	d := newDeployment(t, options{})
	cert, key, pool := selfSigned(t, d.dir)
	w := d.worker("--tls-cert", cert, "--tls-key", key, "--allowed-hosts", "hooks.example.com")
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	deliver := func(host string) (int, string) {
		body := `{"zen":"Keep it logically awesome.","hook_id":1}`
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(body))
		req, err := http.NewRequest(http.MethodPost, "https://"+w.Addr+"/webhook", strings.NewReader(body))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "ping")
		req.Header.Set("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958")
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		res, err := client.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	status, body := deliver("127.0.0.1")
	assert.Equal(t, http.StatusForbidden, status, "a name it was not given: %s", body)
	assert.Contains(t, body, "--allowed-hosts")
	status, body = deliver("hooks.example.com")
	assert.Equal(t, http.StatusOK, status, "its own name: %s", body)

	res, err := client.Get("https://" + w.Addr + "/healthz")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "the probe answers whatever the Host")

	plain, err := http.Post("http://"+w.Addr+"/webhook", "application/json", strings.NewReader("{}"))
	if err == nil {
		plain.Body.Close()
		assert.NotEqual(t, http.StatusAccepted, plain.StatusCode, "plain HTTP is not served")
		assert.NotEqual(t, http.StatusOK, plain.StatusCode, "plain HTTP is not served")
	}
}

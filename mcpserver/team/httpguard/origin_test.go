package httpguard_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
)

func TestHostAndOriginAreCheckedAgainstTheAllowListLoopbackByDefault(t *testing.T) {
	deployed := httpguard.Origins{Hosts: []string{"prmonitor.example.com", "10.0.0.5:8443"}, Origins: []string{"https://tools.example.com/"}}
	tests := []struct {
		name   string
		guard  httpguard.Origins
		host   string
		origin string
		want   int
	}{
		{"a program on loopback (no Origin)", httpguard.Origins{}, "127.0.0.1:8080", "", http.StatusOK},
		{"localhost by name", httpguard.Origins{}, "localhost:8080", "", http.StatusOK},
		{"IPv6 loopback", httpguard.Origins{}, "[::1]:8080", "", http.StatusOK},
		{"a page of the same host", httpguard.Origins{}, "127.0.0.1:8080", "http://127.0.0.1:8080", http.StatusOK},
		{"a local tool's page on another port", httpguard.Origins{}, "localhost:8080", "http://localhost:6274", http.StatusOK},
		{"another site's page", httpguard.Origins{}, "127.0.0.1:8080", "https://evil.example", http.StatusForbidden},
		{"an opaque origin", httpguard.Origins{}, "127.0.0.1:8080", "null", http.StatusForbidden},
		{"DNS rebinding: a loopback listener reached by another name", httpguard.Origins{}, "evil.example:8080", "http://evil.example:8080", http.StatusForbidden},
		{"no Host at all", httpguard.Origins{}, "", "", http.StatusForbidden},
		{"a deployment's own name", deployed, "PrMonitor.example.com", "", http.StatusOK},
		{"a deployment's name with a port", deployed, "prmonitor.example.com:8443", "https://prmonitor.example.com:8443", http.StatusOK},
		{"an address allowed on one port only", deployed, "10.0.0.5:8443", "", http.StatusOK},
		{"the same address on another port", deployed, "10.0.0.5:9000", "", http.StatusForbidden},
		{"loopback is not allowed once names are given", deployed, "127.0.0.1:8443", "", http.StatusForbidden},
		{"a listed origin", deployed, "prmonitor.example.com", "https://tools.example.com", http.StatusOK},
		{"a listed origin's host over plain HTTP", deployed, "prmonitor.example.com", "http://tools.example.com", http.StatusForbidden},
		{"a loopback page once origins are given", deployed, "prmonitor.example.com", "http://localhost:6274", http.StatusForbidden},
		{"another site's page at a deployment", deployed, "prmonitor.example.com", "https://evil.example", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			w := httptest.NewRecorder()
			tt.guard.Guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })).ServeHTTP(w, r)
			assert.Equal(t, tt.want, w.Code, w.Body.String())
		})
	}
}

func TestPlainHTTPIsServedOnlyOnLoopbackOrBehindATLSProxy(t *testing.T) {
	tests := []struct {
		addr         string
		tls, proxied bool
		ok           bool
	}{
		{"127.0.0.1:8080", false, false, true},
		{"localhost:8080", false, false, true},
		{"[::1]:8080", false, false, true},
		{":8443", false, false, false},
		{"0.0.0.0:8443", false, false, false},
		{"10.0.0.5:8443", false, false, false},
		{"prmonitor.example.com:8443", false, false, false},
		{":8443", true, false, true},
		{":8080", false, true, true},
	}
	for _, tt := range tests {
		err := httpguard.CheckListen(tt.addr, tt.tls, tt.proxied)
		if tt.ok {
			assert.NoError(t, err, tt.addr)
		} else {
			assert.ErrorContains(t, err, "--tls-cert", tt.addr)
		}
	}
}

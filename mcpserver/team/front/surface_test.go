package front_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard/floodtest"
)

// TestTheMCPEndpointAnswersOnlyItsOwnHostsAndOriginsWithBodiesOfItsSize: a page of another site
// (its browser sends Origin), a DNS-rebound name (Host) and a body over the cap are refused before
// the token or the body is read; a client on loopback with no Origin, or a page of the same host,
// is served.
func TestTheMCPEndpointAnswersOnlyItsOwnHostsAndOriginsWithBodiesOfItsSize(t *testing.T) {
	hs := offline(t)
	ping := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name         string
		host, origin string
		body         string
		want         int
	}{
		{"a program on loopback", "", "", ping, http.StatusOK},
		{"a page of the same host", "", hs.URL, ping, http.StatusOK},
		{"another site's page", "", "https://evil.example", ping, http.StatusForbidden},
		{"an opaque origin (a sandboxed page, a file)", "", "null", ping, http.StatusForbidden},
		{"a name the deployment does not answer to (DNS rebinding)", "evil.example", "", ping, http.StatusForbidden},
		{"a body over 1 MiB", "", "", `{"pad":"` + strings.Repeat("x", front.DefaultMaxBody) + `"}`, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(tt.body))
			assert.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+tokens["alice"])
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if !assert.NoError(t, err) {
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode, "%s", body)
		})
	}
}

// TestLargeBodiesAtMCPDoNotGrowTheHeap: 40 concurrent authenticated posts of 300 MB are refused
// by their declared length, unread; the heap stays where it was.
func TestLargeBodiesAtMCPDoNotGrowTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("a flood of large posts")
	}
	hs := offline(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := floodtest.Flood{URL: hs.URL + "/mcp", Posts: 40, BodySize: 300 << 20, Header: http.Header{
		"Authorization": {"Bearer " + tokens["alice"]}, "Content-Type": {"application/json"},
		"Accept": {"application/json, text/event-stream"}}}.Run(ctx)
	t.Logf("40 authenticated posts of 300 MiB at /mcp: %s", res)
	for status := range res.Statuses {
		assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	}
	assert.Less(t, res.Growth(), uint64(front.DefaultMaxInFlight), "the heap grew with the bodies")
}

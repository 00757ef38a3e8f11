package main

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// countingTransport counts the requests a command sends, and answers none.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, errors.New("no network in this test")
}

// A pull request URL on another host than the configured GitHub's is refused before any request
// is sent (the token goes nowhere), when the API root says which host that is.
func TestCheckRefusesAURLOnAnotherHostBeforeAnyRequest(t *testing.T) {
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"github.com, a URL elsewhere", []string{"https://evil.example/octo/widgets/pull/7"},
			"https://evil.example/octo/widgets/pull/7 is on evil.example, but the configured GitHub is github.com"},
		{"github.com, a user name that looks like the host", []string{"https://github.com@evil.example/octo/widgets/pull/7"},
			"names the host evil.example (what precedes @ is a user name, not a host), but the configured GitHub is github.com"},
		{"an enterprise server, a github.com URL", []string{"--github-url", "https://ghe.example.com/api/v3", "https://github.com/octo/widgets/pull/7"},
			"is on github.com, but the configured GitHub is ghe.example.com"},
		{"GHE.com, a github.com URL", []string{"--github-url", "https://api.acme.ghe.com", "https://github.com/octo/widgets/pull/7"},
			"is on github.com, but the configured GitHub is acme.ghe.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &countingTransport{}
			res := runCLIWith(t, withToken(), tr, append([]string{"check"}, tt.args...)...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, tt.says)
			assert.Zero(t, tr.n.Load(), "no request sent")
		})
	}
}

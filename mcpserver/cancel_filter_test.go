package mcpserver

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheCancelFilterWithholdsOnlyTheAnswersToCancelledRequests drives the filter line by line:
// the answer to a cancelled request is withheld, every other line goes out whole and in order
// however the writes split it, and the requests it tracks are bounded.
func TestTheCancelFilterWithholdsOnlyTheAnswersToCancelledRequests(t *testing.T) {
	t.Run("a cancelled request's answer is withheld, the others go out", func(t *testing.T) {
		var out bytes.Buffer
		f := newCancelFilter(&out)
		f.observe([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
		f.observe([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
		f.observe([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
		_, err := f.Write([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"))
		require.NoError(t, err)
		assert.Equal(t, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n", out.String())
	})
	t.Run("empty lines and split writes pass through in order", func(t *testing.T) {
		var out bytes.Buffer
		f := newCancelFilter(&out)
		for _, part := range []string{"\n", "{\"jsonrpc\":\"2.0\",", "\"method\":\"notifications/progress\"}\n\n", "{\"id\":3,\"result\":{}}\n"} {
			n, err := f.Write([]byte(part))
			require.NoError(t, err)
			assert.Equal(t, len(part), n)
		}
		assert.Equal(t, "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n{\"id\":3,\"result\":{}}\n", out.String())
	})
	t.Run("at its bound it forgets what it tracked, and only then", func(t *testing.T) {
		f := newCancelFilter(&bytes.Buffer{})
		for i := range maxInflight {
			f.observe(fmt.Appendf(nil, `{"id":%d,"method":"tools/call"}`, i))
		}
		f.mu.Lock()
		assert.Len(t, f.inflight, maxInflight, "exactly the bound is kept")
		f.mu.Unlock()
		f.observe([]byte(`{"id":"one more","method":"tools/call"}`))
		f.mu.Lock()
		assert.Len(t, f.inflight, 1, "past the bound it starts again")
		f.mu.Unlock()
	})
}

package contract

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// A GitHub failure is explained once: a message that already says GitHub is unavailable or rate
// limited is not prefixed with the same news in other words.
func TestAGitHubFailureIsSaidOnce(t *testing.T) {
	tests := []struct {
		name string
		Err  error
		want string
	}{
		{"an outage, as ghclient words it", fmt.Errorf("snapshot octo/widgets#7: %w", fmt.Errorf("%w: 502 Bad Gateway", ghclient.ErrUnavailable)),
			"snapshot octo/widgets#7: GitHub is unavailable: 502 Bad Gateway"},
		{"an outage in words of its own", fmt.Errorf("read: %w", errors.Join(ghclient.ErrUnavailable)), "read: GitHub is unavailable"},
		{"a rate limit", fmt.Errorf("snapshot octo/widgets#7: %w", &ghclient.RateLimitError{Message: "slow down"}),
			"snapshot octo/widgets#7: GitHub rate limit exceeded: slow down"},
		{"a bare outage sentinel wrapped without its words", wrappedKind{ghclient.ErrUnavailable, "connection refused"},
			"GitHub is unreachable: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GitHubCause(tt.Err)
			assert.Equal(t, tt.want, got)
			for _, said := range []string{"GitHub is un", "GitHub rate limit"} {
				assert.LessOrEqual(t, strings.Count(got, said), 1, "said once: %s", got)
			}
		})
	}
}

// wrappedKind is an error that matches kind without saying it.
type wrappedKind struct {
	kind error
	msg  string
}

func (w wrappedKind) Error() string { return w.msg }
func (w wrappedKind) Unwrap() error { return w.kind }

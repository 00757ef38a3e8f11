package oauth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAllowed(t *testing.T) {
	a, err := ParseAllowed(strings.NewReader("# the team\n1001 alice\n\n2002\n"))
	require.NoError(t, err)
	assert.True(t, a.Has(Identity{ID: 1001, Login: "alice"}))
	assert.True(t, a.Has(Identity{ID: 1001, Login: "alice-renamed"}), "a rename changes nothing")
	assert.False(t, a.Has(Identity{ID: 3003, Login: "alice"}), "a recycled login gets nothing")
	assert.True(t, a.Has(Identity{ID: 2002}))

	for _, tc := range []struct{ name, in, want string }{
		{"a login where the id goes", "alice\n", "line 1: the first field must be the GitHub user's numeric id"},
		{"a bad login note", "1001 not_a/login\n", "line 1: the second field"},
		{"an id twice", "1001\n1001 alice\n", "line 2: user id 1001 is named twice"},
		{"three fields", "1001 alice extra\n", "line 1: want ID [LOGIN]"},
		{"nobody", "# nobody yet\n", "no users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAllowed(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

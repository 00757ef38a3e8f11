package ghclient

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeGHScript is a `gh` that prints a token only for `gh auth token --hostname HOST`, naming the
// host in it, and appends every command line it gets to the file CALLS. It uses shell builtins
// only: PATH holds nothing else.
const fakeGHScript = `#!/bin/sh
printf '%s\n' "$*" >> 'CALLS'
if [ "$#" -eq 4 ] && [ "$1" = auth ] && [ "$2" = token ] && [ "$3" = --hostname ]; then
	echo "gho_token_for_$4"
	exit 0
fi
echo "no oauth token found for the default host" >&2
exit 1
`

// TestResolveTokenAsksGhForTheConfiguredHost runs the real ExecCommand against a fake gh on PATH:
// the host comes from --github-url (github.com by default) and is always named.
func TestResolveTokenAsksGhForTheConfiguredHost(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake gh is a shell script")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	script := strings.Replace(fakeGHScript, "CALLS", calls, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755))
	t.Setenv("PATH", dir)

	tests := []struct {
		flag, host string
	}{
		{flag: "", host: "github.com"},
		{flag: "https://api.github.com", host: "github.com"},
		{flag: "https://ghe.example.com/api/v3", host: "ghe.example.com"},
		{flag: "https://api.octo.ghe.com", host: "octo.ghe.com"},
		{flag: "http://127.0.0.1:8080", host: "127.0.0.1:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.host+" from "+tt.flag, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(calls))
			ep, err := ResolveEndpoints(env(nil), tt.flag)
			require.NoError(t, err)
			tok, err := ResolveToken(t.Context(), env(nil), ep.Host(), ExecCommand)
			require.NoError(t, err)
			assert.Equal(t, "gho_token_for_"+tt.host, tok.reveal())
			got, err := os.ReadFile(calls)
			require.NoError(t, err)
			assert.Equal(t, "auth token --hostname "+tt.host+"\n", string(got))
		})
	}

	t.Run("gh without a token for the host: one line, gh's output left out", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "gh"), []byte("#!/bin/sh\necho secret-ish >&2\nexit 4\n"), 0o755))
		_, err := ResolveToken(t.Context(), env(nil), "ghe.example.com", ExecCommand)
		require.ErrorIs(t, err, ErrNoToken)
		assert.Contains(t, err.Error(), "`gh auth token --hostname ghe.example.com` failed: gh exited with status 4")
		assert.NotContains(t, err.Error(), "secret-ish")
		assert.False(t, strings.Contains(err.Error(), "\n"))
	})
}

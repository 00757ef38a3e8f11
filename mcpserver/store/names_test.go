package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// hostileIDs are monitor ids no caller should produce, and the store must survive anyway.
var hostileIDs = []string{
	"../../etc/passwd",
	"/etc/passwd",
	`..\..\windows\system32`,
	"a/../../b#1",
	"acme/widgets#7\x00.json",
	"\x00",
	".",
	"..",
	"-rf",
	"nul/widgets#1",
	"CON",
	"com1.txt",
	"🦀/😀#1",
	"a*b?c[d]e\\f",
	strings.Repeat("a/", 5000) + "#1",
	strings.Repeat("é", 3000),
}

func TestFileName(t *testing.T) {
	tests := []struct{ id, readable string }{
		{"acme/widgets#7", "acme.widgets.7"},
		{"Acme/Widgets#7", "acme.widgets.7"},
		{"ghe.corp.example/acme/widgets#7", "ghe.corp.example.acme.widgets.7"},
		{"my-org/my_repo#12", "my-org.my_repo.12"},
		{"../../etc/passwd", "etc.passwd"},
		{"-rf", "rf"},
		{"nul/widgets#1", "_nul.widgets.1"},
		{"com1.txt", "_com1.txt"},
		{"console/x#1", "console.x.1"},
		{"🦀/😀#1", "1"},
		{"\x00", "monitor"},
	}
	for _, tt := range tests {
		name := store.FileName(tt.id)
		readable, hash, ok := strings.Cut(name[len(name)-9:], "-")
		require.True(t, ok && readable == "", name)
		assert.Equal(t, tt.readable, name[:len(name)-9], "id %q", tt.id)
		assert.Len(t, hash, 8)
		assert.True(t, store.ValidName(name), name)
	}
	assert.Equal(t, store.FileName("acme/widgets#7"), store.FileName("ACME/widgets#7"), "one pull request, one file")
	assert.NotEqual(t, store.FileName("acme/widgets#7"), store.FileName("acme.widgets.7"), "alike ids stay apart")
	assert.NotEqual(t, store.FileName("acme/widgets#7"), store.FileName("acme/widgets#70"))
}

func TestFileNameIsOnePlainPathElement(t *testing.T) {
	seen := map[string]string{}
	for _, id := range append(hostileIDs, "acme/widgets#7", "acme/widgets#8") {
		name := store.FileName(id)
		assertPlainName(t, name)
		if other, dup := seen[name]; dup {
			t.Errorf("%q and %q share the name %q", id, other, name)
		}
		seen[name] = id
	}
}

func FuzzFileName(f *testing.F) {
	for _, id := range hostileIDs {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) { assertPlainName(t, store.FileName(id)) })
}

func assertPlainName(t *testing.T, name string) {
	t.Helper()
	assert.True(t, store.ValidName(name), name)
	assert.LessOrEqual(t, len(name), 74, name)
	assert.Equal(t, filepath.Base(name), name)
	assert.False(t, strings.HasPrefix(name, "."), name)
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
		assert.True(t, ok, "%q in %q", r, name)
	}
}

func TestHostileIDsStayInTheDirectory(t *testing.T) {
	parent := t.TempDir()
	f := openFixture(t, filepath.Join(parent, "state"))
	for _, id := range hostileIDs {
		f.claim(t, id)
		rec := record(t, id)
		require.NoError(t, f.Save(id, rec), "%q", id)
		require.NoError(t, f.Append(id, storeEvent("hostile")), "%q", id)
		got, ok, err := f.Load(id)
		require.NoError(t, err, "%q", id)
		require.True(t, ok, "%q", id)
		assert.Equal(t, id, got.MonitorID)
	}
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written beside the state directory")
	listed, err := f.List()
	require.NoError(t, err)
	assert.Len(t, listed, len(hostileIDs))
	assert.Empty(t, f.filesWith(t, ".corrupt-"))
}

func TestClaimRefusesIDsThatCannotRoundTrip(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"", "acme/\xffwidgets#7"} {
		_, err := f.Claim(id)
		assert.Error(t, err, "%q", id)
	}
	assert.Empty(t, f.files(t))
}

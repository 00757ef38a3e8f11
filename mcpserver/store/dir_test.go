package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

func TestDefaultDir(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"linux XDG", "linux", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/prmonitor", ""},
		{"linux home", "linux", map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/prmonitor", ""},
		{"linux relative XDG is ignored", "linux", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, "/home/u/.local/state/prmonitor", ""},
		{"freebsd", "freebsd", map[string]string{"HOME": "/usr/home/u"}, "/usr/home/u/.local/state/prmonitor", ""},
		{"linux no home", "linux", nil, "", "HOME"},
		{"linux relative home", "linux", map[string]string{"HOME": "u"}, "", "HOME"},
		{"macOS", "darwin", map[string]string{"HOME": "/Users/u", "XDG_STATE_HOME": "/x"}, "/Users/u/Library/Application Support/prmonitor/state", ""},
		{"macOS no home", "darwin", nil, "", "HOME"},
		{"windows", "windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}, `C:\Users\u\AppData\Local\prmonitor\state`, ""},
		{"windows trailing separator", "windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local\`}, `C:\Users\u\AppData\Local\prmonitor\state`, ""},
		{"windows profile", "windows", map[string]string{"USERPROFILE": `C:\Users\u`}, `C:\Users\u\AppData\Local\prmonitor\state`, ""},
		{"windows nothing", "windows", map[string]string{"HOME": "/home/u"}, "", "LOCALAPPDATA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.DefaultDir(func(k string) string { return tt.env[k] }, tt.goos)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), "--state-dir")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

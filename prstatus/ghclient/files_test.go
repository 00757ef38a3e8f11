package ghclient_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The changed files come page by page, at most three pages; a larger diff is incomplete.
func TestChangedFilesAreReadPageByPage(t *testing.T) {
	paths := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("pkg/f%03d.go", i)
		}
		return out
	}
	tests := []struct {
		name     string
		n        int
		want     int
		complete bool
	}{{"none", 0, 0, true}, {"one page", 3, 3, true}, {"two pages", 150, 150, true}, {"too many", 301, 300, false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.FilesChanged{Paths: paths(tt.n)})
			got, complete, err := e.c.ChangedFiles(t.Context(), ref)
			require.NoError(t, err)
			assert.Len(t, got, tt.want)
			assert.Equal(t, tt.complete, complete)
			if tt.n > 0 {
				assert.Equal(t, "pkg/f000.go", got[0])
			}
		})
	}
}

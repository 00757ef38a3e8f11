package ghclient

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// TestAMergeIsPinnedOnlyToAFullHexCommitID holds both halves of the pinned-head check: the length
// (a full SHA-1 or SHA-256 id, nothing shorter, longer or in between) and the alphabet (hex only).
// A prefix, a branch name or a 40-letter word must never reach GitHub as the sha to merge at.
func TestAMergeIsPinnedOnlyToAFullHexCommitID(t *testing.T) {
	ref := prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}
	sha1 := strings.Repeat("0123456789", 4)
	sha256 := strings.Repeat("abcdef0123456789", 4)
	tests := []struct {
		name    string
		head    string
		wantSHA string // "" means refused
	}{
		{name: "a full SHA-1", head: sha1, wantSHA: sha1},
		{name: "a full SHA-256", head: sha256, wantSHA: sha256},
		{name: "upper case and spaces are normalised", head: "  " + strings.ToUpper(sha256) + "\n", wantSHA: sha256},
		{name: "a short SHA", head: sha1[:7]},
		{name: "one short of SHA-1", head: sha1[:39]},
		{name: "one past SHA-1", head: sha1 + "a"},
		{name: "one short of SHA-256", head: sha256[:63]},
		{name: "one past SHA-256", head: sha256 + "a"},
		{name: "a branch name", head: "main"},
		{name: "40 letters that are not hex", head: strings.Repeat("g", 40)},
		{name: "64 letters that are not hex", head: strings.Repeat("z", 64)},
		{name: "hex but for the last character", head: sha1[:39] + "x"},
		{name: "hex but for the first character", head: "x" + sha1[1:]},
		{name: "a 40-byte ref with a slash", head: "refs/heads/" + strings.Repeat("a", 29)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := MergeRequest{ExpectedHeadSHA: tt.head}.body(ref)
			if tt.wantSHA == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "is not a commit SHA")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, mergeBody{MergeMethod: "merge", SHA: tt.wantSHA}, body)
		})
	}
}

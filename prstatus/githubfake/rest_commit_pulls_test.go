package githubfake_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestThePullRequestsOfACommitAreThoseThatHoldItOpenOnesFirst(t *testing.T) {
	f := newFake(t)
	ref := func(n int) githubfake.Ref { return githubfake.Ref{Owner: "octo", Repo: "widgets", Number: n} }
	require.NoError(t, f.Apply(ref(1), githubfake.OpenPR{Title: "one"}))
	require.NoError(t, f.Apply(ref(2), githubfake.OpenPR{Title: "two"}))
	require.NoError(t, f.Apply(ref(3), githubfake.OpenPR{Title: "three"}, githubfake.Merged{}))
	head := f.PR(ref(2)).HeadOID()
	list := func(path string) []map[string]any {
		resp, raw := doREST(t, f, "GET", path, nil)
		require.Equal(t, 200, resp.StatusCode, "%s", raw)
		var out []map[string]any
		require.NoError(t, json.Unmarshal(raw, &out))
		return out
	}

	prs := list("/repos/octo/widgets/commits/" + head + "/pulls?per_page=10")
	require.Len(t, prs, 1, "only the pull request whose commits hold it")
	assert.EqualValues(t, 2, prs[0]["number"])
	assert.Equal(t, "open", prs[0]["state"])
	assert.Equal(t, head, prs[0]["head"].(map[string]any)["sha"])
	assert.Empty(t, list("/api/v3/repos/octo/widgets/commits/0123456789abcdef0123456789abcdef01234567/pulls"), "an unknown commit is in no pull request")
	resp, _ := doREST(t, f, "GET", "/repos/octo/nowhere/commits/"+head+"/pulls", nil)
	assert.Equal(t, 404, resp.StatusCode)
}

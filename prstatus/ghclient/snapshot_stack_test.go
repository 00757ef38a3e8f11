package ghclient_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// A pull request based on another open one's head branch is stacked on it: the snapshot reads
// that in the same request, and the base tip is the lower one's head. When the lower one is
// squash-merged and its branch deleted, GitHub retargets the upper one to the lower one's base,
// whose tip is the squash commit.
func TestTheSnapshotSeesAStackAndItsRetargeting(t *testing.T) {
	e := newFakeEnv(t)
	lower := githubfake.Ref{Owner: ref.Owner, Repo: ref.Repo, Number: 5}
	require.NoError(t, e.f.Apply(lower, githubfake.OpenPR{Title: "lower", Head: "part-1", Base: "main"}, githubfake.DeleteBranchOnMerge{}))
	e.apply(t, githubfake.OpenPR{Title: "upper", Head: "part-2", Base: "part-1"})

	e.rec.reset()
	s, err := e.c.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	assert.Len(t, e.rec.documents(), 1, "one request")
	lowerHead := e.f.PR(lower).HeadOID()
	assert.Equal(t, &prstatus.StackBase{Number: 5, HeadOID: lowerHead}, s.StackedOn)
	assert.Equal(t, "part-1", s.BaseRef)
	assert.Equal(t, lowerHead, s.BaseOID, "the base tip is the lower pull request's head")

	low, err := e.c.Snapshot(t.Context(), prstatus.PRRef(lower))
	require.NoError(t, err)
	assert.Nil(t, low.StackedOn, "main is no open pull request's head")

	require.NoError(t, e.f.Apply(lower, githubfake.Merged{}))
	s, err = e.c.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	assert.Nil(t, s.StackedOn)
	assert.Equal(t, "main", s.BaseRef, "retargeted")
	var merge string
	require.NoError(t, e.f.PR(lower).View(func(pr *githubfake.PullRequest) { merge = pr.MergeCommitOID }))
	assert.Equal(t, merge, s.BaseOID, "main's tip is the merge")
}

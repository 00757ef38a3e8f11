package ghclient

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

var testRef = prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}

// prJSON is a minimal snapshot response whose check contexts have a next page.
func prJSON(head string, contextsNext bool) map[string]any {
	return map[string]any{"data": map[string]any{
		"repository": map[string]any{"pullRequest": map[string]any{
			"id": "PR_1", "number": 1, "title": "t", "url": "https://github.com/o/r/pull/1", "body": "",
			"author": nil, "state": "OPEN", "merged": false, "closed": false, "isDraft": false,
			"headRefName": "h", "headRefOid": head, "baseRefName": "main", "mergeable": "MERGEABLE",
			"mergeStateStatus": "CLEAN", "reviewDecision": nil,
			"latestOpinionatedReviews": map[string]any{"nodes": []any{}},
			"reviews":                  map[string]any{"nodes": []any{}},
			"reviewRequests": map[string]any{"nodes": []any{
				map[string]any{"requestedReviewer": map[string]any{"__typename": "Bot", "login": "copilot-pull-request-reviewer"}},
				map[string]any{"requestedReviewer": map[string]any{"__typename": "User", "login": "bob"}},
				map[string]any{"requestedReviewer": map[string]any{"__typename": "Team", "slug": "core", "organization": map[string]any{"login": "o"}}},
				map[string]any{"requestedReviewer": nil},
			}},
			"reviewThreads": map[string]any{"totalCount": 0, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": nil}, "nodes": []any{}},
			"commits": map[string]any{"totalCount": 1, "pageInfo": map[string]any{"hasPreviousPage": false, "startCursor": "c0"}, "nodes": []any{
				map[string]any{"commit": map[string]any{"oid": head, "authoredDate": "2026-01-01T00:00:00Z", "committedDate": "2026-01-01T00:00:00Z", "messageHeadline": "x", "parents": map[string]any{"totalCount": 1}}},
			}},
			"statusCheckRollup": map[string]any{"contexts": contextsJSON("job 1", contextsNext, "k1")},
		}},
		"viewer":    map[string]any{"login": "me"},
		"rateLimit": map[string]any{"cost": 1, "remaining": 4999, "limit": 5000, "resetAt": "2026-11-21T13:00:00Z"},
	}}
}

func contextsJSON(name string, next bool, cursor string) map[string]any {
	return map[string]any{
		"totalCount": 2,
		"pageInfo":   map[string]any{"hasNextPage": next, "endCursor": cursor},
		"nodes": []any{map[string]any{
			"__typename": "CheckRun", "name": name, "status": "COMPLETED", "conclusion": "SUCCESS", "detailsUrl": nil,
			"databaseId": 5, "isRequired": false, "checkSuite": map[string]any{"workflowRun": nil},
		}},
	}
}

func contextsPageJSON(head, name, cursor string) map[string]any {
	return map[string]any{"data": map[string]any{
		"node": map[string]any{
			"headRefOid":        head,
			"statusCheckRollup": map[string]any{"contexts": contextsJSON(name, false, cursor)},
		},
		"rateLimit": map[string]any{"cost": 1, "remaining": 4998, "limit": 5000, "resetAt": "2026-11-21T13:00:00Z"},
	}}
}

func TestSnapshotRestartsOnceWhenTheHeadMoves(t *testing.T) {
	tests := []struct {
		name      string
		pageHeads []string // head reported by each contexts page
		wantCalls int
		wantErr   error
	}{
		{name: "head steady", pageHeads: []string{"aaa"}, wantCalls: 2},
		{name: "moved once: start over", pageHeads: []string{"bbb", "aaa"}, wantCalls: 4},
		{name: "keeps moving: give up", pageHeads: []string{"bbb", "ccc"}, wantCalls: 4, wantErr: ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls, pages atomic.Int32
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				in := decodeGQL(t, r)
				if strings.Contains(in.Query, "node(id: $id)") {
					head := tt.pageHeads[min(int(pages.Add(1)), len(tt.pageHeads))-1]
					writeJSON(w, 200, contextsPageJSON(head, "job 2", "k2"))
					return
				}
				writeJSON(w, 200, prJSON("aaa", true))
			}))
			s, err := c.Snapshot(t.Context(), testRef)
			assert.Equal(t, tt.wantCalls, int(calls.Load()))
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), "head moved")
				return
			}
			require.NoError(t, err)
			require.Len(t, s.Checks, 2)
			assert.Equal(t, "job 2", s.Checks[1].Name)
			assert.Equal(t, prstatus.RateLimit{Cost: 2, Remaining: 4998, Limit: 5000, ResetAt: time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)}, s.RateLimit)
			assert.Equal(t, []string{"copilot-pull-request-reviewer[bot]", "bob", "o/core"}, s.ReviewRequests)
			assert.Equal(t, prstatus.Actor{Login: "ghost"}, s.Author)
			assert.Empty(t, s.ReviewDecision)
			assert.NotNil(t, s.Reviews)
			assert.NotNil(t, s.LatestOpinionatedReviews)
		})
	}
}

func TestSnapshotStopsOnARepeatedCursor(t *testing.T) {
	var calls atomic.Int32
	c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		in := decodeGQL(t, r)
		if strings.Contains(in.Query, "node(id: $id)") {
			page := contextsPageJSON("aaa", "job 2", "k1") // same cursor again, still "more"
			page["data"].(map[string]any)["node"].(map[string]any)["statusCheckRollup"].(map[string]any)["contexts"].(map[string]any)["pageInfo"] = map[string]any{"hasNextPage": true, "endCursor": "k1"}
			writeJSON(w, 200, page)
			return
		}
		writeJSON(w, 200, prJSON("aaa", true))
	}))
	s, err := c.Snapshot(t.Context(), testRef)
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())
	assert.Len(t, s.Checks, 1)
}

func TestToActor(t *testing.T) {
	assert.Equal(t, prstatus.Actor{Login: "ghost"}, ingest{}.toActor(nil))
	assert.Equal(t, prstatus.Actor{Login: "ghost"}, ingest{}.toActor(&actorNode{Typename: "User"}))
	assert.Equal(t, prstatus.Actor{Login: "alice"}, ingest{}.toActor(&actorNode{Typename: "User", Login: "alice"}))
	assert.Equal(t, prstatus.Actor{Login: "copilot-pull-request-reviewer[bot]", IsBot: true}, ingest{}.toActor(&actorNode{Typename: "Bot", Login: "copilot-pull-request-reviewer"}))
	assert.Equal(t, prstatus.Actor{Login: "dependabot[bot]", IsBot: true}, ingest{}.toActor(&actorNode{Typename: "Bot", Login: "dependabot[bot]"}), "never doubled")
	assert.Equal(t, prstatus.Actor{Login: "imported"}, ingest{}.toActor(&actorNode{Typename: "Mannequin", Login: "imported"}))
}

func TestMergeComments(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC) }
	first := []*commentNode{{ID: "c1", Body: "first", CreatedAt: at(0)}}
	short := []*commentNode{{ID: "c1", Body: "first", CreatedAt: at(0)}, {ID: "c2", Body: "second", CreatedAt: at(1)}}
	long := []*commentNode{{ID: "c8", Body: "eighth", CreatedAt: at(8)}, nil, {ID: "c9", Body: "ninth", CreatedAt: at(9)}}

	ids := func(cs []prstatus.Comment) (out []string) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	assert.Equal(t, []string{"c1", "c2"}, ids(ingest{}.mergeComments(first, short)))
	assert.Equal(t, []string{"c1", "c8", "c9"}, ids(ingest{}.mergeComments(first, long)))
	assert.Empty(t, ingest{}.mergeComments(nil, nil))
	assert.Equal(t, []string{"c8", "c9"}, ids(ingest{}.mergeComments(nil, long)))
	c := ingest{}.mergeComments([]*commentNode{{ID: "x", Author: &actorNode{Typename: "Bot", Login: "b"}, Body: "a\u202Eb"}}, nil)
	assert.Equal(t, prstatus.Actor{Login: "b[bot]", IsBot: true}, c[0].Author)
	assert.Equal(t, "ab", c[0].Body)
}

func TestIsMerge(t *testing.T) {
	tests := []struct {
		parents  int
		headline string
		want     bool
	}{
		{1, "Fix the bug", false},
		{2, "Fix the bug", true},
		{1, "Merge branch 'main' into feature", true},
		{1, "Merge remote-tracking branch 'origin/main'", true},
		{1, "Merge pull request #12 from o/x", true},
		{1, "Merge branches 'a' and 'b'", false},
		{1, "Merged the widgets", false},
		{1, "merge branch 'main'", false},
		{0, "Initial commit", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isMerge(tt.parents, tt.headline), "%d %q", tt.parents, tt.headline)
	}
}

func TestToChecksSkipsUnknownNodes(t *testing.T) {
	got := ingest{}.toChecks([]*contextNode{nil, {Typename: "SomethingNew"}})
	assert.Empty(t, got)
}

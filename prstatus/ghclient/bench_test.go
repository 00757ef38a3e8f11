package ghclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fullPageJSON is a snapshot response with every connection at its first-page maximum: 100
// reviews, 100 threads of 11 comments, 100 commits, 100 checks, bodies of 500 bytes.
func fullPageJSON(b *testing.B) []byte {
	b.Helper()
	body := strings.Repeat("A review comment with `code`. ", 17)
	actor := map[string]any{"__typename": "User", "login": "alice"}
	comment := func(i int) map[string]any {
		return map[string]any{"id": fmt.Sprintf("C%d", i), "databaseId": i, "author": actor, "body": body,
			"createdAt": "2026-01-01T00:00:00Z", "url": "https://github.com/o/r/pull/1#discussion_r1"}
	}
	var reviews, threads, commits, checks []any
	for i := range 100 {
		reviews = append(reviews, map[string]any{"id": fmt.Sprintf("R%d", i), "databaseId": i, "author": actor,
			"state": "COMMENTED", "body": body, "submittedAt": "2026-01-01T00:00:00Z", "commit": map[string]any{"oid": "abc"}})
		var last []any
		for j := range 10 {
			last = append(last, comment(i*100+j+1))
		}
		threads = append(threads, map[string]any{"id": fmt.Sprintf("T%d", i), "isResolved": false, "isOutdated": false,
			"path": "a.go", "line": i + 1,
			"firstComment": map[string]any{"totalCount": 11, "nodes": []any{comment(i * 100)}},
			"lastComments": map[string]any{"totalCount": 11, "nodes": last}})
		commits = append(commits, map[string]any{"commit": map[string]any{"oid": fmt.Sprintf("%040d", i),
			"authoredDate": "2026-01-01T00:00:00Z", "committedDate": "2026-01-01T00:00:00Z",
			"messageHeadline": "Fix things", "parents": map[string]any{"totalCount": 1}}})
		checks = append(checks, map[string]any{"__typename": "CheckRun", "name": fmt.Sprintf("job %d", i),
			"status": "COMPLETED", "conclusion": "SUCCESS", "detailsUrl": "https://github.com/o/r/actions/runs/1/job/2",
			"databaseId": i, "isRequired": false,
			"checkSuite": map[string]any{"workflowRun": map[string]any{"databaseId": 1, "workflow": map[string]any{"name": "CI"}}}})
	}
	resp := map[string]any{"data": map[string]any{
		"repository": map[string]any{"pullRequest": map[string]any{
			"id": "PR_1", "number": 1, "title": "t", "url": "https://github.com/o/r/pull/1", "body": body,
			"author": actor, "state": "OPEN", "merged": false, "closed": false, "isDraft": false,
			"headRefName": "h", "headRefOid": "abc", "baseRefName": "main", "mergeable": "MERGEABLE",
			"mergeStateStatus": "CLEAN", "reviewDecision": "REVIEW_REQUIRED",
			"latestOpinionatedReviews": map[string]any{"nodes": reviews[:5]},
			"reviews":                  map[string]any{"nodes": reviews},
			"reviewRequests":           map[string]any{"nodes": []any{}},
			"reviewThreads":            map[string]any{"totalCount": 100, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": "x"}, "nodes": threads},
			"commits":                  map[string]any{"totalCount": 100, "pageInfo": map[string]any{"hasPreviousPage": false, "startCursor": "y"}, "nodes": commits},
			"statusCheckRollup":        map[string]any{"contexts": map[string]any{"totalCount": 100, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": "z"}, "nodes": checks}},
		}},
		"viewer":    map[string]any{"login": "me"},
		"rateLimit": map[string]any{"cost": 3, "remaining": 4997, "limit": 5000, "resetAt": "2026-11-21T13:00:00Z"},
	}}
	out, err := json.Marshal(resp)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

type cannedTransport []byte

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(c)), ContentLength: int64(len(c)), Request: r}, nil
}

// BenchmarkSnapshotFullPage measures the client side of one poll of a big PR: building the
// document, buffering and inspecting the response, githubv4's decoding, sanitising and converting.
func BenchmarkSnapshotFullPage(b *testing.B) {
	data := fullPageJSON(b)
	c, err := New(Config{Token: NewToken("t"), Transport: cannedTransport(data), Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := c.Snapshot(b.Context(), testRef)
		if err != nil || len(s.Threads) != 100 {
			b.Fatal(err)
		}
	}
}

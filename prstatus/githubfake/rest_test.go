package githubfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestRESTUserAndPull(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	for _, prefix := range []string{"", "/api/v3"} {
		resp, raw := doREST(t, f, "GET", prefix+"/user", nil)
		require.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "dev", jsonMap(t, raw)["login"])
		assert.Equal(t, "core", resp.Header.Get("X-Ratelimit-Resource"))
		assert.NotEmpty(t, resp.Header.Get("X-Ratelimit-Reset"))

		resp, raw = doREST(t, f, "GET", prefix+"/repos/octo/widgets/pulls/7", nil)
		require.Equal(t, 200, resp.StatusCode)
		pr := jsonMap(t, raw)
		assert.Equal(t, "open", pr["state"])
		assert.Equal(t, f.PR(ref).ID(), pr["node_id"])
		assert.Equal(t, f.PR(ref).HeadOID(), pr["head"].(map[string]any)["sha"])
		assert.Equal(t, true, pr["mergeable"])
	}
	resp, raw := doREST(t, f, "GET", "/repos/octo/widgets/pulls/99", nil)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "Not Found", jsonMap(t, raw)["message"])
}

func TestRESTUnknownRoute(t *testing.T) {
	f := newFake(t)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/nope"}, {"DELETE", "/repos/octo/widgets/pulls/7"}, {"GET", "/api/v3/nope"}, {"GET", "/graphql"},
	} {
		resp, raw := doREST(t, f, tc.method, tc.path, nil)
		assert.Equal(t, 404, resp.StatusCode, tc.path)
		assert.Equal(t, "Not Found", jsonMap(t, raw)["message"], tc.path)
	}
}

func TestRESTReply(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	first := mustThread(t, f, 0).Comments[0]
	path := "/repos/octo/widgets/pulls/7/comments/" + strconv.FormatInt(first.DatabaseID, 10) + "/replies"

	resp, raw := doREST(t, f, "POST", path, map[string]any{"body": "Done."})
	require.Equal(t, 201, resp.StatusCode, string(raw))
	c := jsonMap(t, raw)
	assert.Equal(t, "Done.", c["body"])
	assert.Equal(t, "dev", c["user"].(map[string]any)["login"])
	assert.EqualValues(t, first.DatabaseID, c["in_reply_to_id"])
	assert.Regexp(t, `^PRRC_`, c["node_id"])
	assert.Contains(t, c["html_url"], "#discussion_r")
	assert.NotEmpty(t, c["created_at"])

	th := mustThread(t, f, 0)
	require.Len(t, th.Comments, 2)
	assert.Equal(t, "Done.", th.Comments[1].Body)

	// Replying to a reply lands in the same thread.
	reply := "/repos/octo/widgets/pulls/7/comments/" + strconv.FormatInt(th.Comments[1].DatabaseID, 10) + "/replies"
	resp, _ = doREST(t, f, "POST", reply, map[string]any{"body": "Again."})
	require.Equal(t, 201, resp.StatusCode)
	assert.Len(t, mustThread(t, f, 0).Comments, 3)

	// The older form, POST .../comments with in_reply_to (go-github's CreateCommentInReplyTo).
	resp, raw = doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/comments", map[string]any{"body": "Older API.", "in_reply_to": first.DatabaseID})
	require.Equal(t, 201, resp.StatusCode, string(raw))
	assert.Len(t, mustThread(t, f, 0).Comments, 4)
	resp, _ = doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/comments", map[string]any{"body": "New thread", "path": "a.go"})
	assert.Equal(t, 422, resp.StatusCode)

	resp, _ = doREST(t, f, "POST", path, map[string]any{"body": " "})
	assert.Equal(t, 422, resp.StatusCode)
	resp, _ = doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/comments/1/replies", map[string]any{"body": "x"})
	assert.Equal(t, 404, resp.StatusCode)
}

func TestRESTRequestedReviewers(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp, raw := doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/requested_reviewers",
		map[string]any{"reviewers": []string{"alice", "copilot-pull-request-reviewer[bot]"}, "team_reviewers": []string{"docs"}})
	require.Equal(t, 201, resp.StatusCode, string(raw))

	resp, raw = doREST(t, f, "GET", "/repos/octo/widgets/pulls/7/requested_reviewers", nil)
	require.Equal(t, 200, resp.StatusCode)
	var got struct {
		Users []struct{ Login, Type string }
		Teams []struct{ Slug string }
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	var users []string
	for _, u := range got.Users {
		users = append(users, u.Login+"/"+u.Type)
	}
	assert.Equal(t, []string{"bob/User", "alice/User", "copilot-pull-request-reviewer[bot]/Bot"}, users)
	require.Len(t, got.Teams, 2)
	assert.Equal(t, "docs", got.Teams[1].Slug)

	resp, raw = doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/requested_reviewers", map[string]any{"reviewers": []string{"dev"}})
	assert.Equal(t, 422, resp.StatusCode)
	assert.Contains(t, jsonMap(t, raw)["message"], "pull request author")
}

func TestRESTMerge(t *testing.T) {
	var hooked []githubfake.Merge
	f := newFake(t, githubfake.WithMergeHook(func(m githubfake.Merge) { hooked = append(hooked, m) }))
	openPR(t, f)
	path := "/repos/octo/widgets/pulls/7/merge"
	head := f.PR(ref).HeadOID()

	tests := []struct {
		name       string
		setup      []githubfake.Event
		body       map[string]any
		wantStatus int
		wantMsg    string
	}{
		{name: "required check failing", body: map[string]any{"merge_method": "squash", "sha": head},
			wantStatus: 405, wantMsg: `Required status check "test" is not successful.`},
		{name: "stale sha", setup: []githubfake.Event{githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}},
			body: map[string]any{"merge_method": "squash", "sha": "1111111111111111111111111111111111111111"}, wantStatus: 409, wantMsg: "Head branch was modified"},
		{name: "conflict", setup: []githubfake.Event{githubfake.MergeConflict{}},
			body: map[string]any{"merge_method": "squash", "sha": head}, wantStatus: 405, wantMsg: "Pull Request is not mergeable"},
		{name: "branch policy", setup: []githubfake.Event{githubfake.ConflictResolved{},
			githubfake.BranchPolicy{Refusal: "Repository rule violations found\n\nAt least 2 approving reviews are required"}},
			body: map[string]any{"merge_method": "squash", "sha": head}, wantStatus: 405, wantMsg: "At least 2 approving reviews are required"},
		{name: "bad method", setup: []githubfake.Event{githubfake.BranchPolicy{}},
			body: map[string]any{"merge_method": "octopus"}, wantStatus: 422, wantMsg: "merge_method"},
		{name: "merged", body: map[string]any{"merge_method": "squash", "sha": head, "commit_title": "Add widgets (#7)"}, wantStatus: 200},
		{name: "already merged", body: map[string]any{"merge_method": "squash"}, wantStatus: 405, wantMsg: "not mergeable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, f.Apply(ref, tt.setup...))
			resp, raw := doREST(t, f, "PUT", path, tt.body)
			require.Equal(t, tt.wantStatus, resp.StatusCode, string(raw))
			m := jsonMap(t, raw)
			if tt.wantStatus == 200 {
				assert.Equal(t, true, m["merged"])
				assert.Regexp(t, `^[0-9a-f]{40}$`, m["sha"])
				return
			}
			assert.Contains(t, m["message"], tt.wantMsg)
		})
	}
	assert.Equal(t, "MERGED", string(f.PR(ref).State()))
	require.Len(t, f.Merges(), len(tests))
	assert.Equal(t, f.Merges(), hooked)
	resp, _ := doREST(t, f, "GET", path, nil)
	assert.Equal(t, 204, resp.StatusCode)
}

func TestRESTForbidden(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	for _, tc := range []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/repos/octo/widgets/pulls/7", map[string]any{"state": "closed"}},
		{"PATCH", "/repos/octo/widgets/issues/7", map[string]any{"state": "closed"}},
		{"DELETE", "/repos/octo/widgets/git/refs/heads/widgets", nil},
		{"DELETE", "/api/v3/repos/octo/widgets/git/refs/heads/widgets", nil},
	} {
		resp, _ := doREST(t, f, tc.method, tc.path, tc.body)
		assert.Equal(t, 403, resp.StatusCode, tc.path)
	}
	forbidden := f.Forbidden()
	require.Len(t, forbidden, 4)
	assert.Equal(t, "heads/widgets", forbidden[2].Detail)
	assert.Equal(t, "OPEN", string(f.PR(ref).State()))

	resp, raw := doREST(t, f, "PATCH", "/repos/octo/widgets/pulls/7", map[string]any{"title": "Better title"})
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "Better title", jsonMap(t, raw)["title"])
}

func TestRESTJobLogsRedirectAndExpiry(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	job, err := f.PR(ref).Check("test")
	require.NoError(t, err)
	resp, _ := doREST(t, f, "GET", "/repos/octo/widgets/actions/jobs/"+strconv.FormatInt(job.JobID, 10)+"/logs", nil)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc := resp.Header.Get("Location")
	require.NotEmpty(t, loc)

	resp, raw := doRaw(t, f, "GET", loc, nil, "")
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, string(raw), "--- FAIL: TestWidget")

	f.Advance(59 * time.Second)
	resp, _ = doRaw(t, f, "GET", loc, nil, "")
	assert.Equal(t, 200, resp.StatusCode)
	f.Advance(time.Second)
	resp, _ = doRaw(t, f, "GET", loc, nil, "")
	assert.Equal(t, 403, resp.StatusCode, "log URLs expire after a minute of fake time")

	// A client that follows redirects gets the log in one call.
	req, err := http.NewRequest("GET", githubfake.InProcessURL+"/repos/octo/widgets/actions/jobs/"+strconv.FormatInt(job.JobID, 10)+"/logs", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer x")
	resp, err = f.HTTPClient().Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "widget_test.go:12: boom")
	assert.Equal(t, 2, f.RESTCalls(), "two /logs calls; the downloads are not API calls")
	downloads := 0
	for _, r := range f.Requests() {
		if r.Kind == githubfake.KindDownload {
			downloads++
		}
	}
	assert.Equal(t, 4, downloads)

	resp, _ = doREST(t, f, "GET", "/repos/octo/other/actions/jobs/"+strconv.FormatInt(job.JobID, 10)+"/logs", nil)
	assert.Equal(t, 404, resp.StatusCode, "a job of another repository")
}

func TestRESTRerunFailedJobs(t *testing.T) {
	f := newFake(t, githubfake.WithRerunHook(func(j githubfake.RerunJob) githubfake.RerunOutcome {
		return githubfake.RerunOutcome{Conclusion: githubfake.ConclusionSuccess, After: 3 * time.Minute}
	}))
	openPR(t, f)
	old, err := f.PR(ref).Check("test")
	require.NoError(t, err)
	build, err := f.PR(ref).Check("build")
	require.NoError(t, err)
	runPath := "/repos/octo/widgets/actions/runs/" + strconv.FormatInt(old.RunID, 10)

	resp, raw := doREST(t, f, "GET", runPath+"/jobs", nil)
	require.Equal(t, 200, resp.StatusCode)
	var jobs struct {
		TotalCount int `json:"total_count"`
		Jobs       []struct {
			ID                            int64
			Name, Status, Conclusion, URL string
			HTMLURL                       string `json:"html_url"`
		}
	}
	require.NoError(t, json.Unmarshal(raw, &jobs))
	require.Equal(t, 2, jobs.TotalCount)
	assert.Equal(t, "failure", jobs.Jobs[1].Conclusion)
	assert.Equal(t, "completed", jobs.Jobs[1].Status)
	assert.Contains(t, jobs.Jobs[1].HTMLURL, "/job/")

	resp, _ = doREST(t, f, "POST", runPath+"/rerun-failed-jobs", nil)
	require.Equal(t, 201, resp.StatusCode)

	now, err := f.PR(ref).Check("test")
	require.NoError(t, err)
	assert.Equal(t, githubfake.StatusQueued, now.Status)
	assert.NotEqual(t, old.JobID, now.JobID, "a re-run is a new check run")
	assert.Equal(t, 2, now.Attempt)
	still, _ := f.PR(ref).Check("build")
	assert.Equal(t, build.JobID, still.JobID, "successful jobs are not re-run")

	resp, raw = doREST(t, f, "POST", runPath+"/rerun-failed-jobs", nil)
	assert.Equal(t, 403, resp.StatusCode, "already running: %s", raw)

	f.Advance(time.Minute)
	now, _ = f.PR(ref).Check("test")
	assert.Equal(t, githubfake.StatusInProgress, now.Status)
	f.Advance(2 * time.Minute)
	now, _ = f.PR(ref).Check("test")
	assert.Equal(t, githubfake.StatusCompleted, now.Status)
	assert.Equal(t, githubfake.ConclusionSuccess, now.Conclusion)

	resp, _ = doREST(t, f, "POST", runPath+"/rerun-failed-jobs", nil)
	assert.Equal(t, 403, resp.StatusCode, "nothing failed any more")

	resp, _ = doREST(t, f, "POST", runPath+"/rerun", nil)
	require.Equal(t, 201, resp.StatusCode)
	b, _ := f.PR(ref).Check("build")
	assert.NotEqual(t, build.JobID, b.JobID, "a full re-run replaces every job")

	resp, raw = doREST(t, f, "GET", runPath+"/jobs?filter=all", nil)
	require.Equal(t, 200, resp.StatusCode)
	require.NoError(t, json.Unmarshal(raw, &jobs))
	assert.Equal(t, 5, jobs.TotalCount, "every attempt's jobs")

	resp, _ = doREST(t, f, "POST", "/repos/octo/widgets/actions/runs/1/rerun", nil)
	assert.Equal(t, 404, resp.StatusCode)
}

func TestRerunWithoutHookStaysQueued(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	old, _ := f.PR(ref).Check("test")
	resp, _ := doREST(t, f, "POST", "/repos/octo/widgets/actions/runs/"+strconv.FormatInt(old.RunID, 10)+"/rerun-failed-jobs", nil)
	require.Equal(t, 201, resp.StatusCode)
	f.Advance(time.Hour)
	now, _ := f.PR(ref).Check("test")
	assert.Equal(t, githubfake.StatusQueued, now.Status)
	require.NoError(t, f.Apply(ref, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}))
	now, _ = f.PR(ref).Check("test")
	assert.Equal(t, githubfake.ConclusionFailure, now.Conclusion)
}

func TestRESTNeighbours(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	job, err := f.PR(ref).Check("test")
	require.NoError(t, err)
	jobPath := "/repos/octo/widgets/actions/jobs/" + strconv.FormatInt(job.JobID, 10)
	runPath := "/repos/octo/widgets/actions/runs/" + strconv.FormatInt(job.RunID, 10)

	tests := []struct {
		name, method, path string
		body               any
		status             int
		check              func(t *testing.T, m map[string]any, raw []byte)
	}{
		{name: "job", method: "GET", path: jobPath, status: 200, check: func(t *testing.T, m map[string]any, _ []byte) {
			assert.Equal(t, "failure", m["conclusion"])
			assert.EqualValues(t, job.RunID, m["run_id"])
		}},
		{name: "run", method: "GET", path: runPath, status: 200, check: func(t *testing.T, m map[string]any, _ []byte) {
			assert.Equal(t, "CI", m["name"])
			assert.Equal(t, "failure", m["conclusion"])
		}},
		{name: "reviews", method: "GET", path: "/repos/octo/widgets/pulls/7/reviews", status: 200, check: func(t *testing.T, _ map[string]any, raw []byte) {
			var reviews []struct {
				State string
				User  struct{ Login string }
			}
			require.NoError(t, json.Unmarshal(raw, &reviews))
			require.Len(t, reviews, 2)
			assert.Equal(t, "CHANGES_REQUESTED", reviews[0].State)
			assert.Equal(t, "copilot-pull-request-reviewer[bot]", reviews[1].User.Login)
		}},
		{name: "remove a requested reviewer", method: "DELETE", path: "/repos/octo/widgets/pulls/7/requested_reviewers",
			body: map[string]any{"reviewers": []string{"bob"}, "team_reviewers": []string{"core"}}, status: 200,
			check: func(t *testing.T, m map[string]any, _ []byte) {
				assert.Empty(t, m["requested_reviewers"])
				assert.Empty(t, m["requested_teams"])
			}},
		{name: "re-run one job", method: "POST", path: jobPath + "/rerun", status: 201},
		{name: "rate limit", method: "GET", path: "/rate_limit", status: 200, check: func(t *testing.T, m map[string]any, _ []byte) {
			assert.EqualValues(t, 5000, m["rate"].(map[string]any)["limit"])
		}},
		{name: "not merged yet", method: "GET", path: "/repos/octo/widgets/pulls/7/merge", status: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, raw := doREST(t, f, tt.method, tt.path, tt.body)
			require.Equal(t, tt.status, resp.StatusCode, string(raw))
			if tt.check != nil {
				var m map[string]any
				_ = json.Unmarshal(raw, &m)
				tt.check(t, m, raw)
			}
		})
	}
	now, _ := f.PR(ref).Check("test")
	assert.Equal(t, githubfake.StatusQueued, now.Status, "the single-job re-run replaced it")
}

func TestClockOptions(t *testing.T) {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFake(t, githubfake.WithClock(func() time.Time { return base }))
	assert.Equal(t, base, f.Now())
	f.Advance(90 * time.Second)
	assert.Equal(t, base.Add(90*time.Second), f.Now())

	g := newFake(t, githubfake.WithStart(base))
	require.NoError(t, g.Apply(ref, githubfake.OpenPR{Title: "T"}))
	resp := doGraphQL(t, g, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { createdAt } } }`, nil)
	assert.JSONEq(t, `{"repository":{"pullRequest":{"createdAt":"2030-01-01T00:00:00Z"}}}`, string(resp.Data))
}

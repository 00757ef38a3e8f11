package githubfake_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

type commitView struct {
	Oid, MessageHeadline        string
	AuthoredDate, CommittedDate time.Time
	Parents                     struct{ TotalCount int }
}

func commits(t *testing.T, f *githubfake.Fake) []commitView {
	t.Helper()
	resp := doGraphQL(t, f, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  commits(first: 100) { nodes { commit { oid messageHeadline authoredDate committedDate parents(first: 2) { totalCount } } } } } } }`, nil)
	require.Empty(t, resp.Errors)
	var got struct {
		Repository struct {
			PullRequest struct {
				Commits struct{ Nodes []struct{ Commit commitView } }
			}
		}
	}
	resp.decode(t, &got)
	var out []commitView
	for _, n := range got.Repository.PullRequest.Commits.Nodes {
		out = append(out, n.Commit)
	}
	return out
}

func TestCommitHistoryEvents(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "T", Commits: githubfake.Commits(2, "Work")}))
	f.Advance(time.Hour)
	require.NoError(t, f.Apply(ref, githubfake.MergeBase{}))
	before := commits(t, f)
	require.Len(t, before, 3)
	assert.Equal(t, "Merge branch 'main' into feature", before[2].MessageHeadline)
	assert.Equal(t, 2, before[2].Parents.TotalCount)

	f.Advance(time.Hour)
	require.NoError(t, f.Apply(ref, githubfake.Rebase{}))
	after := commits(t, f)
	require.Len(t, after, 2, "a rebase drops merge commits")
	for i := range after {
		assert.NotEqual(t, before[i].Oid, after[i].Oid, "new oids")
		assert.Equal(t, before[i].AuthoredDate, after[i].AuthoredDate, "author dates survive")
		assert.True(t, after[i].CommittedDate.After(before[i].CommittedDate), "committer dates move")
	}

	f.Advance(time.Minute)
	require.NoError(t, f.Apply(ref, githubfake.Amend{Headline: "Work 2, amended"}))
	amended := commits(t, f)
	assert.Equal(t, "Work 2, amended", amended[1].MessageHeadline)
	assert.NotEqual(t, after[1].Oid, amended[1].Oid)
	assert.Equal(t, after[1].AuthoredDate, amended[1].AuthoredDate)
	assert.Equal(t, after[0].Oid, amended[0].Oid)
}

func TestDemoScenarioPlays(t *testing.T) {
	f := newFake(t)
	p := f.Play(githubfake.DemoScenario(ref, dev))
	var said []string
	for !p.Done() {
		step, err := p.Next()
		require.NoError(t, err)
		require.NotEmpty(t, step.Describe())
		said = append(said, step.Describe())
	}
	_, err := p.Next()
	assert.True(t, errors.Is(err, githubfake.ErrScenarioDone))
	assert.Contains(t, said[0], `dev opens "Add rate-limit aware polling" (polling → main) with 2 commits`)
	assert.Contains(t, said[4], "alice requests changes")

	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) {
		assert.Equal(t, githubfake.MergeableStateMergeable, pr.Mergeable)
		assert.Len(t, pr.Threads, 3)
		assert.True(t, pr.Threads[1].IsResolved)
		for _, cr := range pr.Head().CheckRuns {
			assert.Equal(t, githubfake.ConclusionSuccess, cr.Conclusion)
		}
	}))
	assert.Equal(t, githubfake.DefaultStart().Add(136*time.Minute), f.Now())
}

func TestScenariosAreDeterministic(t *testing.T) {
	run := func() string {
		f := newFake(t)
		require.NoError(t, f.Play(githubfake.DemoScenario(ref, dev)).PlayAll())
		resp := doGraphQL(t, f, snapshotQuery, map[string]any{"owner": "octo", "name": "widgets", "number": 7})
		require.Empty(t, resp.Errors)
		return string(resp.Data)
	}
	assert.Equal(t, run(), run())
}

func TestPlayUntilAndPeek(t *testing.T) {
	f := newFake(t)
	p := f.Play(githubfake.DemoScenario(ref, dev))
	require.NoError(t, p.PlayUntil("requests changes"))
	next, ok := p.Peek()
	require.True(t, ok)
	assert.Contains(t, next.Describe(), "pushes 1 commit")
	assert.Equal(t, 5, p.Played())
	require.Error(t, p.PlayUntil("nothing like this"))
}

func TestEventErrors(t *testing.T) {
	f := newFake(t)
	err := f.Apply(ref, githubfake.Push{Commits: githubfake.Commits(1, "x")})
	assert.True(t, errors.Is(err, githubfake.ErrNoPullRequest), "%v", err)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "T"}))
	assert.Error(t, f.Apply(ref, githubfake.OpenPR{Title: "T"}), "already open")
	assert.Error(t, f.Apply(ref, githubfake.ThreadReply{Thread: 3, By: alice, Body: "?"}))
	assert.Error(t, f.Apply(ref, githubfake.CheckCompleted{Name: "nope"}))
	assert.Error(t, f.Apply(ref, githubfake.ReviewDismissed{Reviewer: alice}))
	err = f.PlayStep(ref, githubfake.Step{Say: "broken", Events: []githubfake.Event{githubfake.Reopened{}}})
	assert.ErrorContains(t, err, `step "broken"`)
}

func TestCustomEventAndDo(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref,
		githubfake.OpenPR{Title: "T"},
		githubfake.Custom{Say: "someone edits the title", Fn: func(tx *githubfake.Tx) error {
			pr, err := tx.PR()
			if err != nil {
				return err
			}
			pr.Title = "Edited"
			return nil
		}},
	))
	resp := doGraphQL(t, f, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { title } } }`, nil)
	assert.JSONEq(t, `{"repository":{"pullRequest":{"title":"Edited"}}}`, string(resp.Data))
}

func TestConcurrentUse(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	client := f.HTTPClient()
	call := func(method, path, body string) error {
		req, err := http.NewRequest(method, githubfake.InProcessURL+path, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer x")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		return err
	}
	query := `{"query":` + quote(snapshotQuery) + `,"variables":{"owner":"octo","name":"widgets","number":7}}`
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				switch (i + j) % 4 {
				case 0:
					errs <- call("POST", "/graphql", query)
				case 1:
					errs <- call("GET", "/repos/octo/widgets/pulls/7", "")
				case 2:
					errs <- f.Apply(ref, githubfake.ThreadReply{Thread: 0, By: alice, Body: "ping"})
				case 3:
					f.Advance(time.Second)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 40, len(f.Requests()))
}

func TestThreadEvents(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	require.NoError(t, f.Apply(ref,
		githubfake.ThreadOutdated{Thread: 0},
		githubfake.ThreadResolved{Thread: -1, By: alice},
		githubfake.ThreadReply{Thread: 1, By: bob, Body: "+1"},
	))
	resp := doGraphQL(t, f, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  reviewThreads(first: 10) { nodes { isOutdated isResolved line originalLine resolvedBy { login } comments(first: 10) { totalCount } } } } } }`, nil)
	require.Empty(t, resp.Errors)
	assert.JSONEq(t, `{"repository":{"pullRequest":{"reviewThreads":{"nodes":[
  {"isOutdated":true,"isResolved":false,"line":null,"originalLine":10,"resolvedBy":null,"comments":{"totalCount":1}},
  {"isOutdated":false,"isResolved":false,"line":20,"originalLine":20,"resolvedBy":null,"comments":{"totalCount":2}},
  {"isOutdated":false,"isResolved":true,"line":3,"originalLine":3,"resolvedBy":{"login":"alice"},"comments":{"totalCount":1}}]}}}}`, string(resp.Data))
}

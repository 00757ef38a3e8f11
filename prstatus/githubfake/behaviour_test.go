package githubfake_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// GitHub as it behaves, one behaviour per test (docs/watcher.md, "GitHub's behaviour, and what
// holds prmonitor to it").

const prStateQuery = `query($o:String!,$n:String!,$num:Int!){repository(owner:$o,name:$n){autoMergeAllowed
pullRequest(number:$num){updatedAt mergeable mergeStateStatus baseRefOid isMergeQueueEnabled isInMergeQueue state
autoMergeRequest{mergeMethod enabledBy{login}}
baseRef{target{oid} branchProtectionRule{requiredStatusCheckContexts requiresConversationResolution}
 refUpdateRule{requiredStatusCheckContexts requiredApprovingReviewCount}
 rules(first:100){nodes{type parameters{... on RequiredStatusChecksParameters{requiredStatusChecks{context}}
  ... on PullRequestParameters{requiredApprovingReviewCount requireCodeOwnerReview requiredReviewThreadResolution}}}}}
statusCheckRollup{state contexts(first:100){nodes{... on CheckRun{name status conclusion databaseId isRequired(pullRequestNumber:$num)}
 ... on StatusContext{context state isRequired(pullRequestNumber:$num)}}}}}}}`

type prState struct {
	Repository struct {
		AutoMergeAllowed bool
		PullRequest      struct {
			UpdatedAt           time.Time
			Mergeable           string
			MergeStateStatus    string
			BaseRefOid          string
			IsMergeQueueEnabled bool
			IsInMergeQueue      bool
			State               string
			AutoMergeRequest    *struct {
				MergeMethod string
				EnabledBy   struct{ Login string }
			}
			BaseRef struct {
				Target               struct{ Oid string }
				BranchProtectionRule *struct {
					RequiredStatusCheckContexts    []string
					RequiresConversationResolution bool
				}
				RefUpdateRule *struct {
					RequiredStatusCheckContexts  []string
					RequiredApprovingReviewCount int
				}
				Rules struct {
					Nodes []struct {
						Type       string
						Parameters map[string]any
					}
				}
			}
			StatusCheckRollup *struct {
				State    string
				Contexts struct {
					Nodes []struct {
						Name, Status, Conclusion, Context, State string
						DatabaseID                               int64
						IsRequired                               bool
					}
				}
			}
		}
	}
}

func readState(t *testing.T, f *githubfake.Fake) prState {
	t.Helper()
	r := doGraphQL(t, f, prStateQuery, map[string]any{"o": ref.Owner, "n": ref.Repo, "num": ref.Number})
	require.Empty(t, r.Errors, "%v", r.messages())
	var st prState
	r.decode(t, &st)
	return st
}

func TestMergeabilityIsComputedLazilyAndAGetOfThePullRequestStartsIt(t *testing.T) {
	f := newFake(t, githubfake.WithLazyMergeability(githubfake.LazyMergeability{AfterGet: 3 * time.Second}))
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}))
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.Mergeable, "not computed after opening")
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.MergeStateStatus)

	f.Advance(time.Hour)
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.Mergeable, "nobody asked: still not computed")

	resp, raw := doREST(t, f, http.MethodGet, "/repos/octo/widgets/pulls/7", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Nil(t, jsonMap(t, raw)["mergeable"], "the GET that starts the computation still says null")
	f.Advance(2 * time.Second)
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.Mergeable)
	f.Advance(time.Second)
	assert.Equal(t, "MERGEABLE", readState(t, f).Repository.PullRequest.Mergeable, "computed after the GET")

	require.NoError(t, f.Apply(ref, githubfake.Push{Commits: githubfake.Commits(1, "more")}))
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.Mergeable, "a push makes it uncomputed again")
}

func TestMergeabilityIsComputedOnItsOwnWhenTheFakeSaysSo(t *testing.T) {
	f := newFake(t, githubfake.WithLazyMergeability(githubfake.LazyMergeability{OnItsOwn: 5 * time.Second}))
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}))
	require.NoError(t, f.Apply(ref, githubfake.BaseBranchMoved{Conflict: true}))
	assert.Equal(t, "UNKNOWN", readState(t, f).Repository.PullRequest.Mergeable)
	f.Advance(5 * time.Second)
	st := readState(t, f).Repository.PullRequest
	assert.Equal(t, "CONFLICTING", st.Mergeable)
	assert.Equal(t, "DIRTY", st.MergeStateStatus)
}

func TestWhatMovesAPullRequestsUpdatedAt(t *testing.T) {
	moves := []struct {
		name  string
		event githubfake.Event
		moves bool
	}{
		{"a push", githubfake.Push{Commits: githubfake.Commits(1, "fix")}, true},
		{"a review", githubfake.Approve(alice, ""), true},
		{"a new thread", githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "?"}), true},
		{"a draft toggle", githubfake.SetDraft{Draft: true}, true},
		{"a check completing", githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess}, false},
		{"a thread resolved", githubfake.ThreadResolved{Thread: 0, By: alice}, false},
		{"the base branch moving", githubfake.BaseBranchMoved{}, false},
		{"a conflict appearing", githubfake.MergeConflict{}, false},
		{"a branch rule changing", githubfake.ProtectBranch{Rules: &githubfake.BranchRules{RequiredChecks: []string{"build"}}}, false},
	}
	for _, tt := range moves {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build"}},
				githubfake.CommentReview(bob, "", githubfake.NewThread{Path: "b.go", Line: 2, Body: "nit"})))
			before := readState(t, f).Repository.PullRequest
			f.Advance(time.Minute)
			require.NoError(t, f.Apply(ref, tt.event))
			after := readState(t, f).Repository.PullRequest
			assert.Equal(t, tt.moves, after.UpdatedAt.After(before.UpdatedAt))
		})
	}
}

func TestTheBaseTipMovesButBaseRefOidLagsIt(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}))
	before := readState(t, f).Repository.PullRequest
	require.NoError(t, f.Apply(ref, githubfake.BaseBranchMoved{}))
	after := readState(t, f).Repository.PullRequest
	assert.Equal(t, before.BaseRefOid, after.BaseRefOid, "baseRefOid is where the PR was built")
	assert.NotEqual(t, before.BaseRef.Target.Oid, after.BaseRef.Target.Oid, "the base tip moved")
	require.NoError(t, f.Apply(ref, githubfake.MergeBase{}))
	assert.Equal(t, after.BaseRef.Target.Oid, readState(t, f).Repository.PullRequest.BaseRefOid, "a merge of the base catches up")
}

func TestARollupIsNullAfterAPushUntilTheWorkflowRegisters(t *testing.T) {
	f := newFake(t, githubfake.WithWorkflowOnPush(githubfake.WorkflowOnPush{Jobs: []string{"build", "test"}, After: 20 * time.Second}))
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}))
	assert.Nil(t, readState(t, f).Repository.PullRequest.StatusCheckRollup, "no check registered yet")
	f.Advance(20 * time.Second)
	r := readState(t, f).Repository.PullRequest.StatusCheckRollup
	require.NotNil(t, r)
	assert.Equal(t, "PENDING", r.State)
	assert.Len(t, r.Contexts.Nodes, 2)

	require.NoError(t, f.Apply(ref, githubfake.Push{Commits: githubfake.Commits(1, "fix")}))
	assert.Nil(t, readState(t, f).Repository.PullRequest.StatusCheckRollup, "the new head has none yet")
}

func TestASupersededRunStaysInTheRollupAndStillVotes(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build", "test"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
		githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure},
		githubfake.CheckSuperseded{Name: "test"},
		githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}))
	r := readState(t, f).Repository.PullRequest
	require.NotNil(t, r.StatusCheckRollup)
	assert.Equal(t, "FAILURE", r.StatusCheckRollup.State, "the superseded failure still votes")
	var tests []string
	for _, n := range r.StatusCheckRollup.Contexts.Nodes {
		if n.Name == "test" {
			tests = append(tests, n.Conclusion)
		}
	}
	assert.ElementsMatch(t, []string{"FAILURE", "SUCCESS"}, tests, "both runs are in the rollup")
	assert.Equal(t, "CLEAN", r.MergeStateStatus, "GitHub's merge state counts the latest run only")

	t.Run("a queued duplicate lingers", func(t *testing.T) {
		require.NoError(t, f.Apply(ref, githubfake.CheckSuperseded{Name: "build"}))
		require.NoError(t, f.Apply(ref, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess}))
		require.NoError(t, f.Do(ref, func(tx *githubfake.Tx) error {
			pr, err := tx.PR()
			if err != nil {
				return err
			}
			pr.Head().Superseded[len(pr.Head().Superseded)-1].Status = githubfake.StatusQueued
			return nil
		}))
		assert.Equal(t, "FAILURE", readState(t, f).Repository.PullRequest.StatusCheckRollup.State)
	})
}

func TestARerunKeepsTheRunItReplacesInTheRollup(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	var job int64
	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) { job = pr.Head().CheckRuns[1].Run.DatabaseID }))
	resp, _ := doREST(t, f, http.MethodPost, "/repos/octo/widgets/actions/runs/"+strconv.FormatInt(job, 10)+"/rerun-failed-jobs", nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) {
		require.Len(t, pr.Head().Superseded, 1)
		assert.Equal(t, githubfake.ConclusionFailure, pr.Head().Superseded[0].Conclusion)
	}))
	assert.Len(t, readState(t, f).Repository.PullRequest.StatusCheckRollup.Contexts.Nodes, 4, "build, the old test, the new test, coverage")
}

func TestABatchCanComeBackPartlyAnswered(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}))
	require.NoError(t, f.Apply(githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 8}, githubfake.OpenPR{Title: "u"}))
	f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Times: 1, PartialPaths: []string{"r.b"}})
	r := doGraphQL(t, f, `query{r:repository(owner:"octo",name:"widgets"){a:pullRequest(number:7){number} b:pullRequest(number:8){number}}}`, nil)
	var out struct {
		R struct {
			A *struct{ Number int }
			B *struct{ Number int }
		}
	}
	r.decode(t, &out)
	require.NotNil(t, out.R.A)
	assert.Equal(t, 7, out.R.A.Number, "the good part is kept")
	assert.Nil(t, out.R.B)
	require.Len(t, r.Errors, 1)
	assert.Equal(t, []any{"r", "b"}, r.Errors[0].Path)
	assert.Contains(t, r.Errors[0].Message, "timeout")
}

func TestTheBaseBranchsRulesShowAsGitHubShowsThem(t *testing.T) {
	rules := &githubfake.BranchRules{RequiredChecks: []string{"build"}, RequiredApprovals: 1, ConversationResolution: true}
	setup := []githubfake.Event{
		githubfake.OpenPR{Title: "t"}, githubfake.ProtectBranch{Rules: rules},
		githubfake.AddRuleset{BranchRules: githubfake.BranchRules{RequiredChecks: []string{"ci/legacy"}, CodeOwnerReviews: true}},
		githubfake.ChecksQueued{Jobs: []string{"build", "lint"}},
	}
	t.Run("to an administrator", func(t *testing.T) {
		f := newFake(t)
		require.NoError(t, f.Apply(ref, setup...))
		st := readState(t, f).Repository.PullRequest
		require.NotNil(t, st.BaseRef.BranchProtectionRule)
		assert.Equal(t, []string{"build"}, st.BaseRef.BranchProtectionRule.RequiredStatusCheckContexts)
		assert.True(t, st.BaseRef.BranchProtectionRule.RequiresConversationResolution)
		require.NotNil(t, st.BaseRef.RefUpdateRule)
		assert.Equal(t, 1, st.BaseRef.RefUpdateRule.RequiredApprovingReviewCount)
		types := []string{}
		for _, n := range st.BaseRef.Rules.Nodes {
			types = append(types, n.Type)
		}
		assert.Equal(t, []string{"REQUIRED_STATUS_CHECKS", "PULL_REQUEST"}, types)
		required := map[string]bool{}
		for _, n := range st.StatusCheckRollup.Contexts.Nodes {
			required[n.Name] = n.IsRequired
		}
		assert.Equal(t, map[string]bool{"build": true, "lint": false}, required, "isRequired follows the rules")
		assert.Equal(t, "BLOCKED", st.MergeStateStatus, "required checks have not passed, ci/legacy never reported")
	})
	t.Run("to a writer who is not an administrator", func(t *testing.T) {
		f := newFake(t, githubfake.WithoutAdmin())
		require.NoError(t, f.Apply(ref, setup...))
		st := readState(t, f).Repository.PullRequest
		assert.Nil(t, st.BaseRef.BranchProtectionRule, "only administrators read the protection rule")
		require.NotNil(t, st.BaseRef.RefUpdateRule, "everyone reads GitHub's view of it")
		assert.Equal(t, []string{"build"}, st.BaseRef.RefUpdateRule.RequiredStatusCheckContexts)
	})
}

func TestAutoMergeIsEnabledOnlyWhereGitHubAllowsItAndMergesWhenReady(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t", RequiredApprovals: 1}, githubfake.ChecksQueued{Jobs: []string{"build"}, Required: []string{"build"}}))
	var prID, head string
	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) { prID, head = pr.ID, pr.HeadOID() }))
	enable := func(h string) gqlResponse {
		return doGraphQL(t, f, `mutation($i:EnablePullRequestAutoMergeInput!){enablePullRequestAutoMerge(input:$i){pullRequest{number}}}`,
			map[string]any{"i": map[string]any{"pullRequestId": prID, "expectedHeadOid": h, "mergeMethod": "SQUASH"}})
	}
	assert.Contains(t, enable(head).messages(), "Auto merge is not allowed for this repository")

	require.NoError(t, f.Apply(ref, githubfake.AllowAutoMerge{Allowed: true}))
	assert.True(t, readState(t, f).Repository.AutoMergeAllowed)
	assert.Contains(t, enable("0000000000000000000000000000000000000000").messages(), "Head sha didn't match expected head sha")
	r := enable(head)
	require.Empty(t, r.Errors, "%v", r.messages())
	am := readState(t, f).Repository.PullRequest.AutoMergeRequest
	require.NotNil(t, am)
	assert.Equal(t, "SQUASH", am.MergeMethod)
	assert.Equal(t, "dev", am.EnabledBy.Login)
	assert.Empty(t, enable(head).Errors, "enabling twice is harmless")

	require.NoError(t, f.Apply(ref, githubfake.Approve(alice, "")))
	assert.Equal(t, "OPEN", readState(t, f).Repository.PullRequest.State, "the required check still runs")
	require.NoError(t, f.Apply(ref, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess}))
	st := readState(t, f).Repository.PullRequest
	assert.Equal(t, "MERGED", st.State, "GitHub merged it by itself")
	merges := f.Merges()
	require.Len(t, merges, 1)
	assert.Equal(t, githubfake.ThroughAutoMerge, merges[0].Through)
	assert.Equal(t, "squash", merges[0].Method)
}

func TestAutoMergeCanBeDisabledAndIsRefusedOnACleanPullRequest(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}, githubfake.AllowAutoMerge{Allowed: true}))
	var prID string
	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) { prID = pr.ID }))
	in := map[string]any{"i": map[string]any{"pullRequestId": prID}}
	r := doGraphQL(t, f, `mutation($i:EnablePullRequestAutoMergeInput!){enablePullRequestAutoMerge(input:$i){clientMutationId}}`, in)
	assert.Contains(t, r.messages(), "Pull request is in clean status", "merge it instead")

	require.NoError(t, f.Apply(ref, githubfake.ChecksQueued{Jobs: []string{"build"}, Required: []string{"build"}}))
	require.Empty(t, doGraphQL(t, f, `mutation($i:EnablePullRequestAutoMergeInput!){enablePullRequestAutoMerge(input:$i){clientMutationId}}`, in).Errors)
	r = doGraphQL(t, f, `mutation($i:DisablePullRequestAutoMergeInput!){disablePullRequestAutoMerge(input:$i){clientMutationId}}`, in)
	require.Empty(t, r.Errors, "%v", r.messages())
	assert.Nil(t, readState(t, f).Repository.PullRequest.AutoMergeRequest)
	r = doGraphQL(t, f, `mutation($i:DisablePullRequestAutoMergeInput!){disablePullRequestAutoMerge(input:$i){clientMutationId}}`, in)
	assert.Contains(t, r.messages(), "Auto merge is not enabled for this pull request")
}

func TestAMergeQueueTakesThePullRequestInsteadOfADirectMerge(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}, githubfake.AddRuleset{MergeQueue: true}))
	st := readState(t, f).Repository.PullRequest
	assert.True(t, st.IsMergeQueueEnabled)
	var prID, head string
	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) { prID, head = pr.ID, pr.HeadOID() }))

	resp, raw := doREST(t, f, http.MethodPut, "/repos/octo/widgets/pulls/7/merge", map[string]any{"sha": head})
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Contains(t, string(raw), "merge queue")

	enqueue := `mutation($i:EnqueuePullRequestInput!){enqueuePullRequest(input:$i){mergeQueueEntry{state position}}}`
	r := doGraphQL(t, f, enqueue, map[string]any{"i": map[string]any{"pullRequestId": prID, "expectedHeadOid": "0000000000000000000000000000000000000000"}})
	assert.Contains(t, r.messages(), "Head sha didn't match expected head sha")
	r = doGraphQL(t, f, enqueue, map[string]any{"i": map[string]any{"pullRequestId": prID, "expectedHeadOid": head}})
	require.Empty(t, r.Errors, "%v", r.messages())
	assert.True(t, readState(t, f).Repository.PullRequest.IsInMergeQueue)
	assert.Equal(t, "OPEN", readState(t, f).Repository.PullRequest.State, "the queue merges later")
	f.Advance(time.Minute)
	assert.Equal(t, "MERGED", readState(t, f).Repository.PullRequest.State)
	merges := f.Merges()
	require.NotEmpty(t, merges)
	assert.Equal(t, githubfake.ThroughMergeQueue, merges[len(merges)-1].Through)
}

func TestTheRESTAPIVersionIsHonoured(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Title: "t"}, githubfake.Merged{}))
	get := func(version string) (*http.Response, map[string]any) {
		req, err := http.NewRequest(http.MethodGet, githubfake.InProcessURL+"/repos/octo/widgets/pulls/7", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "token "+token)
		if version != "" {
			req.Header.Set("X-GitHub-Api-Version", version)
		}
		resp, err := f.HTTPClient().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	_, old := get("")
	assert.Contains(t, old, "merge_commit_sha", "2022-11-28 still has it")
	resp, pinned := get(githubfake.APIVersion20260310)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotContains(t, pinned, "merge_commit_sha", "2026-03-10 removed it")
	resp, _ = get("2030-01-01")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

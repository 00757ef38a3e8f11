package githubfake_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var issueRef = githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 9}

// A pull request's labels, assignees, comments and label timeline in GraphQL, as GitHub shapes
// them; every document is validated against the schema.
func TestConversationInGraphQL(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Author: dev, Title: "t"},
		githubfake.AddLabels{Labels: []string{"wip", "area/ui"}, By: alice}))
	f.Advance(time.Hour)
	require.NoError(t, f.Apply(ref, githubfake.RemoveLabel{Label: "wip"}, githubfake.AddLabels{Labels: []string{"wip"}},
		githubfake.Assign{Assignees: []githubfake.Actor{alice}},
		githubfake.Comment{Author: copilot, Body: "Fix plan for abcdef1"}))

	resp := doGraphQL(t, f, `query($o:String!,$n:String!){repository(owner:$o,name:$n){pullRequests(states:OPEN,first:10){nodes{
		number labels(first:10){nodes{name color}} assignees(first:5){nodes{login}}
		comments(last:10){nodes{author{__typename login} body databaseId url}}
		timelineItems(itemTypes:[LABELED_EVENT,UNLABELED_EVENT],last:10){totalCount nodes{__typename
			... on LabeledEvent{createdAt label{name} actor{login}} ... on UnlabeledEvent{createdAt label{name}}}}}}}}`,
		map[string]any{"o": "octo", "n": "widgets"})
	require.Empty(t, resp.Errors, resp.messages())
	var data struct {
		Repository struct {
			PullRequests struct {
				Nodes []struct {
					Number int
					Labels struct {
						Nodes []struct{ Name, Color string }
					}
					Assignees struct{ Nodes []struct{ Login string } }
					Comments  struct {
						Nodes []struct {
							Author     struct{ Typename, Login string } `json:"author"`
							Body       string
							DatabaseID int64
							URL        string
						}
					}
					TimelineItems struct {
						TotalCount int
						Nodes      []struct {
							Typename  string `json:"__typename"`
							CreatedAt time.Time
							Label     struct{ Name string }
						}
					}
				}
			}
		}
	}
	resp.decode(t, &data)
	require.Len(t, data.Repository.PullRequests.Nodes, 1)
	pr := data.Repository.PullRequests.Nodes[0]
	assert.Equal(t, 7, pr.Number)
	assert.Equal(t, []struct{ Name, Color string }{{"area/ui", "ededed"}, {"wip", "ededed"}}, pr.Labels.Nodes, "labels in the order applied")
	assert.Equal(t, []struct{ Login string }{{"alice"}}, pr.Assignees.Nodes)
	require.Len(t, pr.Comments.Nodes, 1)
	assert.Equal(t, "copilot-pull-request-reviewer", pr.Comments.Nodes[0].Author.Login, "GraphQL: a bot without [bot]")
	assert.Contains(t, pr.Comments.Nodes[0].URL, "/pull/7#issuecomment-")
	var kinds []string
	for _, n := range pr.TimelineItems.Nodes {
		kinds = append(kinds, n.Typename+" "+n.Label.Name)
	}
	assert.Equal(t, []string{"LabeledEvent wip", "LabeledEvent area/ui", "UnlabeledEvent wip", "LabeledEvent wip"}, kinds)
	assert.Equal(t, githubfake.DefaultStart().Add(time.Hour), pr.TimelineItems.Nodes[3].CreatedAt)

	bad := doGraphQL(t, f, `{repository(owner:"octo",name:"widgets"){pullRequest(number:7){timelineItems(itemTypes:[REVIEW_REQUESTED_EVENT],first:5){totalCount}}}}`, nil)
	require.NotEmpty(t, bad.Errors)
	assert.Contains(t, bad.messages()[0], "is not implemented", "an unmodelled timeline item is loud")
}

func TestIssuesInGraphQL(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(issueRef, githubfake.OpenIssue{Author: alice, Title: "Crash on start", Labels: []string{"bug"}}))
	require.NoError(t, f.Apply(githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 4}, githubfake.OpenIssue{Title: "Docs"}))
	require.NoError(t, f.Apply(githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 11},
		githubfake.OpenIssue{Title: "Taken", Labels: []string{"Bug"}, Assignees: []githubfake.Actor{bob}}))
	require.Error(t, f.Apply(issueRef, githubfake.OpenIssue{Title: "again"}), "numbers are unique")

	q := `query($l:[String!]){repository(owner:"octo",name:"widgets"){issues(states:OPEN,labels:$l,first:10,orderBy:{field:CREATED_AT,direction:ASC}){
		nodes{number title url state author{login} assignees(first:1){totalCount} labels(first:5){nodes{name}}}}}}`
	var data struct {
		Repository struct {
			Issues struct {
				Nodes []struct {
					Number    int
					Title     string
					URL       string
					State     string
					Assignees struct{ TotalCount int }
				}
			}
		}
	}
	resp := doGraphQL(t, f, q, map[string]any{"l": nil})
	require.Empty(t, resp.Errors, resp.messages())
	resp.decode(t, &data)
	var numbers []int
	for _, n := range data.Repository.Issues.Nodes {
		numbers = append(numbers, n.Number)
	}
	assert.Equal(t, []int{4, 9, 11}, numbers, "oldest first")
	assert.Equal(t, "https://github.com/octo/widgets/issues/9", data.Repository.Issues.Nodes[1].URL)
	assert.Equal(t, 1, data.Repository.Issues.Nodes[2].Assignees.TotalCount)

	resp = doGraphQL(t, f, q, map[string]any{"l": []string{"bug"}})
	require.Empty(t, resp.Errors, resp.messages())
	data.Repository.Issues.Nodes = nil
	resp.decode(t, &data)
	require.Len(t, data.Repository.Issues.Nodes, 2, "label names match case-insensitively")
	assert.Equal(t, 9, data.Repository.Issues.Nodes[0].Number)
}

// The issues API's label and assignee endpoints, on a pull request and on an issue, in REST's
// shapes; every change shows in GraphQL's timeline.
func TestLabelAndAssigneeEndpoints(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref, githubfake.OpenPR{Author: dev, Title: "t"}))
	require.NoError(t, f.Apply(issueRef, githubfake.OpenIssue{Title: "i"}))

	resp, raw := doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/7/labels", []string{"wip"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(raw))
	assert.Contains(t, string(raw), `"name":"wip"`)
	resp, raw = doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/7/labels", map[string]any{"labels": []any{"ready", map[string]any{"name": "kind/bug"}}})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(raw))
	var labels []map[string]any
	require.NoError(t, json.Unmarshal(raw, &labels))
	assert.Len(t, labels, 3, "every label of the pull request")

	resp, _ = doREST(t, f, http.MethodDelete, "/repos/octo/widgets/issues/7/labels/kind%2Fbug", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a label with a slash, escaped")
	resp, raw = doREST(t, f, http.MethodDelete, "/repos/octo/widgets/issues/7/labels/nope", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(raw), "Label does not exist")
	resp, _ = doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/7/labels", []string{})
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)

	resp, raw = doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/9/assignees", map[string]any{"assignees": []string{"alice", "copilot-pull-request-reviewer[bot]"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(raw))
	issue := jsonMap(t, raw)
	assert.Equal(t, 9.0, issue["number"])
	assert.Len(t, issue["assignees"], 2)
	assert.Equal(t, "copilot-pull-request-reviewer[bot]", issue["assignees"].([]any)[1].(map[string]any)["login"], "REST: a bot with [bot]")
	resp, raw = doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/7/assignees", map[string]any{"assignees": []string{"alice"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Contains(t, jsonMap(t, raw), "pull_request", "the issues API marks a pull request")
	resp, _ = doREST(t, f, http.MethodPost, "/repos/octo/widgets/issues/99/assignees", map[string]any{"assignees": []string{"alice"}})
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	require.NoError(t, f.View(ref, func(pr *githubfake.PullRequest) {
		assert.Equal(t, []string{"wip", "ready"}, pr.LabelNames())
		assert.Len(t, pr.Timeline, 4, "three labeled, one unlabeled")
		assert.Equal(t, []githubfake.Actor{alice}, pr.Assignees)
	}))
}

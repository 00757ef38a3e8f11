package githubfake_test

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// snapshotQuery is the shape of prmonitor's one-query poll (docs/architecture.md#talking-to-github).
const snapshotQuery = `query($owner: String!, $name: String!, $number: Int!) {
  viewer { login }
  rateLimit { cost remaining limit resetAt used nodeCount }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id number title url body state merged closed isDraft
      author { __typename login }
      headRefName headRefOid baseRefName mergeable mergeStateStatus reviewDecision
      latestOpinionatedReviews(first: 50) { nodes { id author { login } state submittedAt commit { oid } } }
      reviews(last: 50) { totalCount nodes { id databaseId author { __typename login } state body submittedAt commit { oid } } }
      reviewRequests(first: 50) { nodes { requestedReviewer {
        __typename
        ... on User { login } ... on Bot { login } ... on Team { slug organization { login } } ... on Mannequin { login }
      } } }
      reviewThreads(first: 100) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine
          first: comments(first: 1) { totalCount nodes { id databaseId author { __typename login } body createdAt url } }
          last: comments(last: 5) { nodes { id databaseId author { login } body createdAt } }
        }
      }
      commits(last: 100) { totalCount nodes { commit { oid authoredDate committedDate messageHeadline parents(first: 2) { totalCount } } } }
      statusCheckRollup {
        state
        contexts(first: 100) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes {
            __typename
            ... on CheckRun {
              name status conclusion detailsUrl databaseId isRequired(pullRequestNumber: $number)
              checkSuite { workflowRun { databaseId workflow { name } } }
            }
            ... on StatusContext { context state targetUrl isRequired(pullRequestNumber: $number) }
          }
        }
      }
    }
  }
}`

type author struct {
	Typename string `json:"__typename"`
	Login    string `json:"login"`
}

type snapshot struct {
	Viewer    struct{ Login string }
	RateLimit struct {
		Cost, Remaining, Limit, Used, NodeCount int
		ResetAt                                 time.Time
	}
	Repository struct {
		PullRequest struct {
			ID, Title, URL, Body, State                     string
			Number                                          int
			Merged, Closed, IsDraft                         bool
			Author                                          author
			HeadRefName, HeadRefOid, BaseRefName, Mergeable string
			MergeStateStatus                                string
			ReviewDecision                                  *string
			LatestOpinionatedReviews                        struct{ Nodes []struct{ State string } }
			Reviews                                         struct {
				TotalCount int
				Nodes      []struct {
					ID, State, Body string
					DatabaseID      int64
					Author          author
					Commit          struct{ Oid string }
				}
			}
			ReviewRequests struct {
				Nodes []struct {
					RequestedReviewer struct {
						Typename     string `json:"__typename"`
						Login, Slug  string
						Organization struct{ Login string }
					}
				}
			}
			ReviewThreads struct {
				TotalCount int
				PageInfo   struct {
					HasNextPage bool
					EndCursor   string
				}
				Nodes []struct {
					ID, Path           string
					IsResolved         bool
					Line, OriginalLine *int
					First              struct {
						TotalCount int
						Nodes      []struct {
							ID, Body, URL string
							DatabaseID    int64
							Author        author
							CreatedAt     time.Time
						}
					}
				}
			}
			Commits struct {
				TotalCount int
				Nodes      []struct {
					Commit struct {
						Oid, MessageHeadline        string
						AuthoredDate, CommittedDate time.Time
						Parents                     struct{ TotalCount int }
					}
				}
			}
			StatusCheckRollup struct {
				State    string
				Contexts struct {
					TotalCount int
					Nodes      []struct {
						Typename                 string `json:"__typename"`
						Name, Status, Conclusion string
						DatabaseID               int64
						IsRequired               bool
						Context, State           string
						CheckSuite               struct {
							WorkflowRun *struct {
								DatabaseID int64
								Workflow   struct{ Name string }
							}
						}
					}
				}
			}
		}
	}
}

func TestSnapshotQuery(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp := doGraphQL(t, f, snapshotQuery, map[string]any{"owner": "octo", "name": "widgets", "number": 7})
	require.Empty(t, resp.Errors)
	var s snapshot
	resp.decode(t, &s)
	pr := s.Repository.PullRequest

	assert.Equal(t, "dev", s.Viewer.Login)
	// GitHub's formula: 1 request per connection, times the pages of the connections around
	// it: 6 top-level connections + 100×2 thread comments + 100 commit parents = 306 → 3 points.
	assert.Equal(t, 3, s.RateLimit.Cost)
	assert.Equal(t, 5000, s.RateLimit.Limit)
	assert.Equal(t, 4997, s.RateLimit.Remaining)
	assert.Equal(t, "4997", resp.header.Get("X-Ratelimit-Remaining"))
	assert.Equal(t, "graphql", resp.header.Get("X-Ratelimit-Resource"))
	assert.Positive(t, s.RateLimit.NodeCount)

	assert.Equal(t, 7, pr.Number)
	assert.Regexp(t, `^PR_kwDO`, pr.ID)
	assert.Equal(t, "https://github.com/octo/widgets/pull/7", pr.URL)
	assert.Equal(t, "OPEN", pr.State)
	assert.Equal(t, author{"User", "dev"}, pr.Author)
	assert.Equal(t, "widgets", pr.HeadRefName)
	assert.Equal(t, "main", pr.BaseRefName)
	assert.Regexp(t, `^[0-9a-f]{40}$`, pr.HeadRefOid)
	assert.Equal(t, "MERGEABLE", pr.Mergeable)
	assert.Equal(t, "BLOCKED", pr.MergeStateStatus, "the failing check is required")
	assert.Nil(t, pr.ReviewDecision, "null without a review rule")

	require.Len(t, pr.LatestOpinionatedReviews.Nodes, 1, "Copilot's COMMENTED review is not opinionated")
	assert.Equal(t, "CHANGES_REQUESTED", pr.LatestOpinionatedReviews.Nodes[0].State)
	require.Equal(t, 2, pr.Reviews.TotalCount)
	assert.Equal(t, author{"Bot", "copilot-pull-request-reviewer"}, pr.Reviews.Nodes[1].Author, "GraphQL bot logins have no [bot]")
	assert.Equal(t, pr.HeadRefOid, pr.Reviews.Nodes[0].Commit.Oid)

	var requested []string
	for _, n := range pr.ReviewRequests.Nodes {
		rr := n.RequestedReviewer
		requested = append(requested, rr.Typename+":"+rr.Login+rr.Organization.Login+"/"+rr.Slug)
	}
	assert.Equal(t, []string{"User:bob/", "Team:octo/core"}, requested, "alice's review answered her request")

	require.Equal(t, 3, pr.ReviewThreads.TotalCount)
	th := pr.ReviewThreads.Nodes[0]
	assert.Regexp(t, `^PRRT_`, th.ID)
	assert.Equal(t, "widget.go", th.Path)
	require.NotNil(t, th.Line)
	assert.Equal(t, 10, *th.Line)
	require.Len(t, th.First.Nodes, 1)
	c := th.First.Nodes[0]
	assert.Regexp(t, `^PRRC_`, c.ID)
	assert.Equal(t, "https://github.com/octo/widgets/pull/7#discussion_r"+itoa(c.DatabaseID), c.URL)
	assert.Equal(t, author{"Bot", "copilot-pull-request-reviewer"}, pr.ReviewThreads.Nodes[2].First.Nodes[0].Author)

	require.Equal(t, 2, pr.Commits.TotalCount)
	assert.Equal(t, "Add widget tests", pr.Commits.Nodes[1].Commit.MessageHeadline)
	assert.Equal(t, pr.HeadRefOid, pr.Commits.Nodes[1].Commit.Oid)
	assert.Equal(t, 1, pr.Commits.Nodes[1].Commit.Parents.TotalCount)

	rollup := pr.StatusCheckRollup
	assert.Equal(t, "FAILURE", rollup.State)
	require.Equal(t, 3, rollup.Contexts.TotalCount)
	build, test, cov := rollup.Contexts.Nodes[0], rollup.Contexts.Nodes[1], rollup.Contexts.Nodes[2]
	assert.Equal(t, []string{"CheckRun", "build", "COMPLETED", "SUCCESS"}, []string{build.Typename, build.Name, build.Status, build.Conclusion})
	assert.Equal(t, "FAILURE", test.Conclusion)
	assert.True(t, test.IsRequired)
	require.NotNil(t, test.CheckSuite.WorkflowRun)
	assert.Equal(t, "CI", test.CheckSuite.WorkflowRun.Workflow.Name)
	assert.Positive(t, test.DatabaseID)
	assert.Equal(t, []string{"StatusContext", "coverage", "SUCCESS"}, []string{cov.Typename, cov.Context, cov.State})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestBotLoginsGraphQLVersusREST(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp := doGraphQL(t, f, `query { repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  reviewThreads(last: 1) { nodes { comments(first: 1) { nodes { databaseId author { __typename login } } } } } } } }`, nil)
	require.Empty(t, resp.Errors)
	var got struct {
		Repository struct {
			PullRequest struct {
				ReviewThreads struct {
					Nodes []struct {
						Comments struct {
							Nodes []struct {
								DatabaseID int64
								Author     author
							}
						}
					}
				}
			}
		}
	}
	resp.decode(t, &got)
	c := got.Repository.PullRequest.ReviewThreads.Nodes[0].Comments.Nodes[0]
	assert.Equal(t, author{"Bot", "copilot-pull-request-reviewer"}, c.Author)

	httpResp, raw := doREST(t, f, "GET", "/repos/octo/widgets/pulls/7/comments", nil)
	require.Equal(t, 200, httpResp.StatusCode)
	var comments []struct {
		ID   int64
		User struct{ Login, Type string }
	}
	require.NoError(t, json.Unmarshal(raw, &comments))
	var bots []string
	for _, rc := range comments {
		if rc.ID == c.DatabaseID {
			bots = append(bots, rc.User.Login+"/"+rc.User.Type)
		}
	}
	assert.Equal(t, []string{"copilot-pull-request-reviewer[bot]/Bot"}, bots)
}

func TestReviewDecisionWithRequiredApprovals(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	q := `query { repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviewDecision mergeStateStatus } } }`
	decision := func() (any, string) {
		var got struct {
			Repository struct {
				PullRequest struct {
					ReviewDecision   any
					MergeStateStatus string
				}
			}
		}
		doGraphQL(t, f, q, nil).decode(t, &got)
		return got.Repository.PullRequest.ReviewDecision, got.Repository.PullRequest.MergeStateStatus
	}
	require.NoError(t, f.Apply(ref, githubfake.RequireApprovals{N: 1}))
	d, m := decision()
	assert.Equal(t, "CHANGES_REQUESTED", d)
	assert.Equal(t, "BLOCKED", m)

	require.NoError(t, f.Apply(ref, githubfake.CommentReview(alice, "more thoughts")))
	d, _ = decision()
	assert.Equal(t, "CHANGES_REQUESTED", d, "a later COMMENTED review does not override a verdict")

	require.NoError(t, f.Apply(ref, githubfake.Approve(alice, "LGTM")))
	d, _ = decision()
	assert.Equal(t, "APPROVED", d)

	require.NoError(t, f.Apply(ref, githubfake.ReviewDismissed{Reviewer: alice}))
	d, _ = decision()
	assert.Equal(t, "REVIEW_REQUIRED", d)
}

func BenchmarkSnapshotQuery(b *testing.B) {
	f, err := githubfake.New(githubfake.WithViewer("dev"), githubfake.WithRateLimit(1<<30))
	require.NoError(b, err)
	require.NoError(b, f.Apply(ref,
		githubfake.OpenPR{Title: "Big", Commits: githubfake.Commits(100, "Step")},
		githubfake.RequestChanges(alice, "Fix these", githubfake.Threads(100, "big.go")...),
		githubfake.ChecksQueued{Jobs: githubfake.JobNames(100, "job")},
	))
	h := f.Handler()
	body := `{"query":` + quote(snapshotQuery) + `,"variables":{"owner":"octo","name":"widgets","number":7}}`
	for b.Loop() {
		req := httptest.NewRequest("POST", "/graphql", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

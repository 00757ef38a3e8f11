package githubfake_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/shurcooL/githubv4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The GraphQL client prmonitor is built on must work against the fake unchanged, over a real
// loopback server and in-process. (go-github cannot be compiled here yet: go.sum lacks its
// go-querystring dependency; the REST tests speak plain HTTP instead.)

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

type prQuery struct {
	Viewer     struct{ Login githubv4.String }
	Repository struct {
		PullRequest struct {
			Number        githubv4.Int
			HeadRefOid    githubv4.GitObjectID
			Mergeable     githubv4.MergeableState
			ReviewThreads struct {
				TotalCount githubv4.Int
				Nodes      []struct {
					ID       githubv4.ID
					Comments struct {
						Nodes []struct {
							Author struct {
								Typename githubv4.String `graphql:"__typename"`
								Login    githubv4.String
							}
						}
					} `graphql:"comments(first: 1)"`
				}
			} `graphql:"reviewThreads(first: 100, after: $after)"`
			StatusCheckRollup struct {
				Contexts struct {
					Nodes []struct {
						Typename githubv4.String `graphql:"__typename"`
						CheckRun struct {
							Name       githubv4.String
							Conclusion githubv4.String
							IsRequired githubv4.Boolean `graphql:"isRequired(pullRequestNumber: $number)"`
						} `graphql:"... on CheckRun"`
					}
				} `graphql:"contexts(first: 100)"`
			}
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

func TestGithubv4Client(t *testing.T) {
	for _, mode := range []string{"loopback", "in-process"} {
		t.Run(mode, func(t *testing.T) {
			f := newFake(t, githubfake.WithToken(token))
			openPR(t, f)
			base, transport := githubfake.InProcessURL, f.HTTPClient().Transport
			if mode == "loopback" {
				base, transport = f.Start(), http.DefaultTransport
				defer f.Close()
			}
			httpClient := &http.Client{Transport: bearer{token: token, next: transport}}
			ctx := context.Background()

			gql := githubv4.NewEnterpriseClient(base+"/graphql", httpClient)
			var q prQuery
			err := gql.Query(ctx, &q, map[string]any{
				"owner": githubv4.String("octo"), "name": githubv4.String("widgets"),
				"number": githubv4.Int(7), "after": (*githubv4.String)(nil),
			})
			require.NoError(t, err)
			pr := q.Repository.PullRequest
			assert.Equal(t, "dev", string(q.Viewer.Login))
			assert.Equal(t, 7, int(pr.Number))
			assert.Equal(t, githubv4.MergeableStateMergeable, pr.Mergeable)
			require.Len(t, pr.ReviewThreads.Nodes, 3)
			assert.Equal(t, "copilot-pull-request-reviewer", string(pr.ReviewThreads.Nodes[2].Comments.Nodes[0].Author.Login))
			require.Len(t, pr.StatusCheckRollup.Contexts.Nodes, 3)
			assert.True(t, bool(pr.StatusCheckRollup.Contexts.Nodes[1].CheckRun.IsRequired))
			assert.Equal(t, "FAILURE", string(pr.StatusCheckRollup.Contexts.Nodes[1].CheckRun.Conclusion))

			var m struct {
				ResolveReviewThread struct {
					Thread struct{ IsResolved githubv4.Boolean }
				} `graphql:"resolveReviewThread(input: $input)"`
			}
			require.NoError(t, gql.Mutate(ctx, &m, githubv4.ResolveReviewThreadInput{ThreadID: pr.ReviewThreads.Nodes[0].ID}, nil))
			assert.True(t, bool(m.ResolveReviewThread.Thread.IsResolved))

			assert.Empty(t, f.Forbidden())
		})
	}
}

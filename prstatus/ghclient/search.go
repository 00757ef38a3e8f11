package ghclient

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// The open pull requests of the viewer, for pr_monitor_start_all: ONE GraphQL request with up to
// three aliased searches (authored by the viewer; assigned to the viewer; awaiting the viewer's
// review), the last two skipped with @include unless asked.
//
// Cost (GitHub's formula: one request per connection page, per parent; points = requests/100,
// at least 1): each search is one connection page of at most 100 items with plain fields only,
// so the request is at most 3 requests = 1 point.

// SearchPage is how many pull requests one search reads: GitHub's largest page.
const SearchPage = 100

// Search queries (GitHub's issue search syntax); %s is whose pull requests: @me (the viewer) or a
// login.
const (
	searchAuthored        = "is:pr is:open author:%s archived:false"
	searchAssigned        = "is:pr is:open assignee:%s archived:false"
	searchReviewRequested = "is:pr is:open review-requested:%s archived:false"
)

// loginPattern is what GitHub allows in a user's login (letters, digits, single hyphens, at most
// 39): a login goes into a search query, so nothing else may.
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$`)

// ValidLogin reports whether s is a GitHub user's login as GitHub allows them.
func ValidLogin(s string) bool { return loginPattern.MatchString(s) }

// Why a pull request was found.
const (
	FoundAuthored        = "authored"
	FoundAssigned        = "assigned"
	FoundReviewRequested = "review_requested"
)

type searchNode struct {
	PullRequest struct {
		Number     int        `graphql:"number"`
		Title      string     `graphql:"title"`
		URL        string     `graphql:"url"`
		IsDraft    bool       `graphql:"isDraft"`
		Author     *actorNode `graphql:"author"`
		Repository struct {
			Name  string `graphql:"name"`
			Owner struct {
				Login string `graphql:"login"`
			} `graphql:"owner"`
		} `graphql:"repository"`
		// AuthorAssociation and IsCrossRepository say whether pr_monitor_start_all takes a pull
		// request someone else wrote (docs/security.md, "Whose pull requests are monitored").
		AuthorAssociation   string     `graphql:"authorAssociation"`
		IsCrossRepository   bool       `graphql:"isCrossRepository"`
		HeadRepositoryOwner *loginNode `graphql:"headRepositoryOwner"`
		// The branches tell a stack: one pull request's base is another's head.
		HeadRefName string `graphql:"headRefName"`
		BaseRefName string `graphql:"baseRefName"`
	} `graphql:"... on PullRequest"`
}

type searchConn struct {
	IssueCount int           `graphql:"issueCount"`
	Nodes      []*searchNode `graphql:"nodes"`
}

// openPRsQuery is the one request: the viewer and up to three searches.
type openPRsQuery struct {
	Viewer struct {
		Login string `graphql:"login"`
	} `graphql:"viewer"`
	Authored        searchConn     `graphql:"authored: search(type: ISSUE, query: $authored, first: 100)"`
	Assigned        searchConn     `graphql:"assigned: search(type: ISSUE, query: $assigned, first: 100) @include(if: $withAssigned)"`
	ReviewRequested searchConn     `graphql:"reviewRequested: search(type: ISSUE, query: $reviewRequested, first: 100) @include(if: $withReviewRequested)"`
	RateLimit       *rateLimitNode `graphql:"rateLimit"`
}

// OpenPRsQuery says which searches to run besides the viewer's own pull requests.
type OpenPRsQuery struct {
	Assigned        bool
	ReviewRequested bool
	// For is whose pull requests to find, a GitHub login; empty means the viewer's (@me). The
	// team deployment's token is a GitHub App's, whose viewer is the App: it names the user.
	For string
}

// FoundPR is one open pull request a search found. Title and author are GitHub text (untrusted).
type FoundPR struct {
	Ref     prstatus.PRRef
	Title   string
	URL     string
	Author  prstatus.Actor
	IsDraft bool
	// AuthorAssociation is the author's relation to the repository; IsCrossRepository, whether the
	// head branch is in a fork.
	AuthorAssociation prstatus.Association
	IsCrossRepository bool
	// HeadOwner is the login of the head repository's owner ("" when it was deleted).
	HeadOwner string
	// HeadRef and BaseRef are the pull request's branches (GitHub text).
	HeadRef, BaseRef string
	// Found is why: FoundAuthored, FoundAssigned or FoundReviewRequested (the first that found it).
	Found string
}

// OpenPRs is what the searches found, each pull request once.
type OpenPRs struct {
	Viewer string
	PRs    []FoundPR
	// Truncated: a search matched more than SearchPage pull requests; the rest were not read.
	Truncated bool
	RateLimit prstatus.RateLimit
}

// OpenPRs lists the viewer's open pull requests in one GraphQL request (see the cost above).
func (c *Client) OpenPRs(ctx context.Context, q OpenPRsQuery) (OpenPRs, error) {
	who := "@me"
	if q.For != "" {
		if !ValidLogin(q.For) {
			return OpenPRs{}, fmt.Errorf("search the open pull requests: %q is not a GitHub login", text.ClipBytes(q.For, 40))
		}
		who = q.For
	}
	var res openPRsQuery
	vars := map[string]any{
		"authored":            githubv4.String(fmt.Sprintf(searchAuthored, who)),
		"assigned":            githubv4.String(fmt.Sprintf(searchAssigned, who)),
		"reviewRequested":     githubv4.String(fmt.Sprintf(searchReviewRequested, who)),
		"withAssigned":        githubv4.Boolean(q.Assigned),
		"withReviewRequested": githubv4.Boolean(q.ReviewRequested),
	}
	if err := c.gql.Query(ctx, &res, vars); err != nil {
		return OpenPRs{}, fmt.Errorf("search the open pull requests: %w", c.callError(err))
	}
	out := OpenPRs{Viewer: c.in.text(res.Viewer.Login), PRs: []FoundPR{}}
	if q.For != "" {
		out.Viewer = q.For
	}
	if r := res.RateLimit; r != nil {
		out.RateLimit = prstatus.RateLimit{Cost: r.Cost, Remaining: r.Remaining, Limit: r.Limit, ResetAt: r.ResetAt}
	}
	seen := map[string]bool{}
	for _, s := range []struct {
		conn  searchConn
		found string
	}{{res.Authored, FoundAuthored}, {res.Assigned, FoundAssigned}, {res.ReviewRequested, FoundReviewRequested}} {
		if s.conn.IssueCount > len(s.conn.Nodes) && len(s.conn.Nodes) >= SearchPage {
			out.Truncated = true
		}
		for _, n := range s.conn.Nodes {
			if n == nil || n.PullRequest.Number <= 0 {
				continue // an issue, or a result the token cannot see
			}
			p := n.PullRequest
			ref, err := prstatus.ParsePRRef(fmt.Sprintf("%s/%s#%d", p.Repository.Owner.Login, p.Repository.Name, p.Number))
			if err != nil {
				continue // not a name GitHub gives a repository: never monitored
			}
			key := strings.ToLower(ref.String())
			if seen[key] {
				continue
			}
			seen[key] = true
			out.PRs = append(out.PRs, FoundPR{Ref: ref, Title: c.in.text(p.Title), URL: c.in.text(p.URL),
				Author: c.in.toActor(p.Author), IsDraft: p.IsDraft, Found: s.found,
				AuthorAssociation: prstatus.Association(p.AuthorAssociation), IsCrossRepository: p.IsCrossRepository,
				HeadOwner: c.in.login(p.HeadRepositoryOwner), HeadRef: c.in.text(p.HeadRefName), BaseRef: c.in.text(p.BaseRefName)})
		}
	}
	return out, nil
}

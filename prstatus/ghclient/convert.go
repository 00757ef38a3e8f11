package ghclient

import (
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// ghostLogin is the login GitHub shows for a deleted account (a null author in GraphQL).
const ghostLogin = "ghost"

// ingest converts GitHub's answers into prstatus types. Every string GitHub sent (text users
// wrote, names, paths, branch names, URLs) passes through text, once, here: sanitised, and
// without the server's own token in any of its obvious encodings (a job log or a comment can
// print it).
type ingest struct {
	redact sanitize.Redactor
}

// text is the ingestion step for one string from GitHub.
func (in ingest) text(s string) string { return in.redact.Clean(s) }

// toActor normalises an author once, here: bots get REST's "[bot]" suffix and IsBot, and a
// deleted account (null author) becomes "ghost".
func (in ingest) toActor(a *actorNode) prstatus.Actor {
	if a == nil || a.Login == "" {
		return prstatus.Actor{Login: ghostLogin}
	}
	login := in.text(a.Login)
	if a.Typename == "Bot" {
		return prstatus.Actor{Login: botLogin(login), IsBot: true}
	}
	return prstatus.Actor{Login: login}
}

// botLogin is a bot's login in REST form ("copilot-pull-request-reviewer[bot]").
func botLogin(login string) string {
	if strings.HasSuffix(login, "[bot]") {
		return login
	}
	return login + "[bot]"
}

func (in ingest) toReviews(nodes []*reviewNode) []prstatus.Review {
	out := make([]prstatus.Review, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		r := prstatus.Review{
			ID:         n.ID,
			DatabaseID: n.DatabaseID,
			Author:     in.toActor(n.Author),
			State:      prstatus.ReviewState(n.State),
			Body:       in.text(n.Body),

			AuthorAssociation: prstatus.Association(n.AuthorAssociation),
		}
		if n.SubmittedAt != nil {
			r.SubmittedAt = n.SubmittedAt.UTC()
		}
		if n.Commit != nil {
			r.CommitOID = n.Commit.Oid
		}
		out = append(out, r)
	}
	return out
}

func (in ingest) toReviewRequests(pr *pullRequestNode) []string {
	if pr.ReviewRequests == nil {
		return nil
	}
	var out []string
	for _, n := range pr.ReviewRequests.Nodes {
		if n == nil || n.RequestedReviewer == nil {
			continue
		}
		r := n.RequestedReviewer
		switch {
		case r.Typename == "Team" && r.Team.Slug != "":
			out = append(out, in.text(r.Team.Organization.Login)+"/"+in.text(r.Team.Slug))
		case r.Typename == "Bot" && r.Actor.Login != "":
			out = append(out, botLogin(in.text(r.Actor.Login)))
		case r.Actor.Login != "":
			out = append(out, in.text(r.Actor.Login))
		}
	}
	return out
}

func (in ingest) toThreads(nodes []*threadNode) []prstatus.Thread {
	out := make([]prstatus.Thread, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		t := prstatus.Thread{
			ID:         n.ID,
			IsResolved: n.IsResolved,
			IsOutdated: n.IsOutdated,
			Path:       in.text(n.Path),
			Comments:   in.mergeComments(n.FirstComment.Nodes, n.LastComments.Nodes),
		}
		if n.Line != nil {
			t.Line = *n.Line
		}
		t.TotalComments = max(n.LastComments.TotalCount, n.FirstComment.TotalCount, len(t.Comments))
		out = append(out, t)
	}
	return out
}

// mergeComments joins a thread's first comment and its newest ones, oldest first, each once (on a
// short thread the newest include the first).
func (in ingest) mergeComments(first, last []*commentNode) []prstatus.Comment {
	out := make([]prstatus.Comment, 0, len(first)+len(last))
	seen := make(map[string]bool, len(first)+len(last))
	for _, n := range slices.Concat(first, last) {
		if n == nil || seen[n.ID] {
			continue
		}
		seen[n.ID] = true
		out = append(out, prstatus.Comment{
			ID:         n.ID,
			DatabaseID: n.DatabaseID,
			Author:     in.toActor(n.Author),
			Body:       in.text(n.Body),
			CreatedAt:  n.CreatedAt.UTC(),
			URL:        in.text(n.URL),

			AuthorAssociation: prstatus.Association(n.AuthorAssociation),
		})
	}
	slices.SortStableFunc(out, func(a, b prstatus.Comment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out
}

func (in ingest) toCommits(nodes []commitNode) []prstatus.Commit {
	out := make([]prstatus.Commit, 0, len(nodes))
	for _, c := range nodes {
		out = append(out, prstatus.Commit{
			OID:           c.Oid,
			AuthoredDate:  c.AuthoredDate.UTC(),
			CommittedDate: c.CommittedDate.UTC(),
			Headline:      in.text(c.MessageHeadline),
			ParentCount:   c.Parents.TotalCount,
		})
	}
	return out
}

func (in ingest) toChecks(nodes []*contextNode) []prstatus.Check {
	out := make([]prstatus.Check, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		switch n.Typename {
		case string(prstatus.KindCheckRun):
			cr := n.CheckRun
			c := prstatus.Check{
				Kind:       prstatus.KindCheckRun,
				Name:       in.text(cr.Name),
				Status:     cr.Status,
				Conclusion: deref(cr.Conclusion),
				URL:        in.text(deref(cr.DetailsURL)),
				IsRequired: cr.IsRequired,
			}
			if cr.DatabaseID != nil {
				c.DatabaseID = *cr.DatabaseID
			}
			if cr.CheckSuite != nil && cr.CheckSuite.WorkflowRun != nil {
				if run := cr.CheckSuite.WorkflowRun; run.DatabaseID != nil {
					c.WorkflowRunID = *run.DatabaseID
				}
				if wf := cr.CheckSuite.WorkflowRun.Workflow; wf != nil {
					c.WorkflowName = in.text(wf.Name)
				}
			}
			out = append(out, c)
		case string(prstatus.KindStatusContext):
			sc := n.StatusContext
			out = append(out, prstatus.Check{
				Kind:       prstatus.KindStatusContext,
				Name:       in.text(sc.Context),
				State:      sc.State,
				URL:        in.text(deref(sc.TargetURL)),
				IsRequired: sc.IsRequired,
			})
		}
	}
	return out
}

func toRateLimit(r *rateLimitNode) prstatus.RateLimit {
	if r == nil {
		return prstatus.RateLimit{}
	}
	return prstatus.RateLimit{Cost: r.Cost, Remaining: r.Remaining, Limit: r.Limit, ResetAt: r.ResetAt.UTC()}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

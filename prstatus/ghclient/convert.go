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

// link is the ingestion step for a link an app wrote (a check's details, a status's target): kept
// only when it is an https link (sanitize.HTTPSLink), else dropped.
func (in ingest) link(s string) string { return sanitize.HTTPSLink(in.text(s)) }

// loginNode is an account read for its login alone (a repository's owner).
type loginNode struct {
	Login string `graphql:"login"`
}

// login is an account's login, "" for none (a deleted repository has no owner).
func (in ingest) login(n *loginNode) string {
	if n == nil {
		return ""
	}
	return in.text(n.Login)
}

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

// toReviewRequests lists the pending review requests, and those of them GitHub made of code
// owners.
func (in ingest) toReviewRequests(pr *pullRequestNode) (all, codeOwners []string) {
	if pr.ReviewRequests == nil {
		return nil, nil
	}
	for _, n := range pr.ReviewRequests.Nodes {
		if n == nil || n.RequestedReviewer == nil {
			continue
		}
		r := n.RequestedReviewer
		var who string
		switch {
		case r.Typename == "Team" && r.Team.Slug != "":
			who = in.text(r.Team.Organization.Login) + "/" + in.text(r.Team.Slug)
		case r.Typename == "Bot" && r.Actor.Login != "":
			who = botLogin(in.text(r.Actor.Login))
		case r.Actor.Login != "":
			who = in.text(r.Actor.Login)
		default:
			continue
		}
		all = append(all, who)
		if n.AsCodeOwner {
			codeOwners = append(codeOwners, who)
		}
	}
	return all, codeOwners
}

// toBaseRules joins what the base branch's protection rule (either view of it) and its rulesets
// require. Check contexts are GitHub text, cleaned like any other.
func (in ingest) toBaseRules(b *baseRefNode) prstatus.BaseRules {
	var r prstatus.BaseRules
	if b == nil {
		return r
	}
	var checks []string
	addChecks := func(contexts []*string) {
		for _, c := range contexts {
			if c != nil && *c != "" {
				checks = append(checks, in.text(*c))
			}
		}
	}
	if p := b.BranchProtectionRule; p != nil {
		if p.RequiresStatusChecks {
			addChecks(p.RequiredStatusCheckContexts)
			r.StrictChecks = p.RequiresStrictStatusChecks
		}
		if p.RequiresApprovingReviews && p.RequiredApprovingReviewCount != nil {
			r.RequiredApprovals = *p.RequiredApprovingReviewCount
		}
		r.CodeOwnerReviews = p.RequiresCodeOwnerReviews
		r.ConversationResolution = p.RequiresConversationResolution
	}
	if u := b.RefUpdateRule; u != nil {
		addChecks(u.RequiredStatusCheckContexts)
		if u.RequiredApprovingReviewCount != nil {
			r.RequiredApprovals = max(r.RequiredApprovals, *u.RequiredApprovingReviewCount)
		}
		r.CodeOwnerReviews = r.CodeOwnerReviews || u.RequiresCodeOwnerReviews
		r.ConversationResolution = r.ConversationResolution || u.RequiresConversationResolution
	}
	if b.Rules != nil {
		for _, n := range b.Rules.Nodes {
			if n == nil {
				continue
			}
			switch n.Type {
			case "MERGE_QUEUE":
				r.MergeQueue = true
			case "REQUIRED_STATUS_CHECKS":
				if p := n.Parameters; p != nil {
					for _, c := range p.Checks.RequiredStatusChecks {
						checks = append(checks, in.text(c.Context))
					}
					r.StrictChecks = r.StrictChecks || p.Checks.Strict
				}
			case "PULL_REQUEST":
				if p := n.Parameters; p != nil {
					r.RequiredApprovals = max(r.RequiredApprovals, p.PullRequest.RequiredApprovingReviewCount)
					r.CodeOwnerReviews = r.CodeOwnerReviews || p.PullRequest.RequireCodeOwnerReview
					r.ConversationResolution = r.ConversationResolution || p.PullRequest.RequiredReviewThreadResolution
				}
			}
		}
	}
	slices.Sort(checks)
	r.RequiredChecks = slices.Compact(checks)
	return r
}

// toAutoMerge is the pull request's auto-merge request (nil: none).
func (in ingest) toAutoMerge(pr *pullRequestNode) *prstatus.AutoMerge {
	a := pr.AutoMergeRequest
	if a == nil {
		return nil
	}
	out := &prstatus.AutoMerge{MergeMethod: a.MergeMethod}
	if a.EnabledBy != nil {
		out.EnabledBy = in.toActor(a.EnabledBy).Login
	}
	if a.EnabledAt != nil {
		out.EnabledAt = a.EnabledAt.UTC()
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
				URL:        in.link(deref(cr.DetailsURL)),
				IsRequired: cr.IsRequired,
			}
			if cr.DatabaseID != nil {
				c.DatabaseID = *cr.DatabaseID
			}
			if cr.StartedAt != nil {
				c.At = cr.StartedAt.UTC()
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
			c := prstatus.Check{
				Kind:       prstatus.KindStatusContext,
				Name:       in.text(sc.Context),
				State:      sc.State,
				URL:        in.link(deref(sc.TargetURL)),
				IsRequired: sc.IsRequired,
			}
			if sc.CreatedAt != nil {
				c.At = sc.CreatedAt.UTC()
			}
			out = append(out, c)
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

package githubfake

import (
	"cmp"
	"slices"
	"strings"
)

// GitHub's search (type: ISSUE) over the fake's pull requests, for the qualifiers prmonitor uses:
// is:pr, is:open / is:closed / is:merged, author:, assignee:, review-requested: (a login or @me),
// draft:true|false and archived:false (no repository is archived). Any other term is refused
// loudly, so a query the fake cannot answer faithfully never passes a test by accident. Results
// come newest first, as GitHub sorts issue search by default when nothing else ranks them.

// searchFilter is one parsed search query.
type searchFilter struct {
	open, closed, merged bool
	author, assignee     string
	reviewRequested      string
	draft                *bool
}

func (x *execution) parseSearch(query string) (searchFilter, error) {
	var s searchFilter
	isPR := false
	for _, term := range strings.Fields(query) {
		key, val, ok := strings.Cut(term, ":")
		if !ok {
			return s, newFieldError("", "githubfake: search term %q is not modelled (only qualifiers are)", term)
		}
		who := val
		if strings.EqualFold(val, "@me") {
			who = x.f.viewer.Login
		}
		switch strings.ToLower(key) {
		case "is", "type", "state":
			switch strings.ToLower(val) {
			case "pr", "pull-request":
				isPR = true
			case "open":
				s.open = true
			case "closed":
				s.closed = true
			case "merged":
				s.merged = true
			default:
				return s, newFieldError("", "githubfake: search qualifier %q is not modelled", term)
			}
		case "author":
			s.author = who
		case "assignee":
			s.assignee = who
		case "review-requested":
			s.reviewRequested = who
		case "draft":
			b := strings.EqualFold(val, "true")
			s.draft = &b
		case "archived":
			if !strings.EqualFold(val, "false") {
				return s, newFieldError("", "githubfake: search qualifier %q is not modelled", term)
			}
		default:
			return s, newFieldError("", "githubfake: search qualifier %q is not modelled", term)
		}
	}
	if !isPR {
		return s, newFieldError("", "githubfake: only pull request searches (is:pr) are modelled, not %q", query)
	}
	return s, nil
}

func (s searchFilter) matches(pr *PullRequest) bool {
	switch {
	case s.open && pr.State != PRStateOpen,
		s.closed && pr.State == PRStateOpen,
		s.merged && pr.State != PRStateMerged,
		s.draft != nil && pr.IsDraft != *s.draft,
		s.author != "" && !strings.EqualFold(pr.Author.Login, s.author):
		return false
	}
	if s.assignee != "" && !slices.ContainsFunc(pr.Assignees, func(a Actor) bool { return strings.EqualFold(a.Login, s.assignee) }) {
		return false
	}
	if s.reviewRequested != "" && !slices.ContainsFunc(pr.ReviewRequests, func(r *ReviewRequest) bool {
		return strings.EqualFold(r.Reviewer.Login, s.reviewRequested)
	}) {
		return false
	}
	return true
}

// search answers Query.search: the matching pull requests of every repository, newest first.
func (x *execution) search(args map[string]any) (any, error) {
	if typ, _ := argString(args, "type"); typ != "ISSUE" {
		return nil, newFieldError("", "githubfake: search type %q is not modelled (only ISSUE)", typ)
	}
	query, _ := argString(args, "query")
	filter, err := x.parseSearch(query)
	if err != nil {
		return nil, err
	}
	var found []*PullRequest
	for _, r := range x.f.repos {
		for _, pr := range r.PullRequests {
			if filter.matches(pr) {
				found = append(found, pr)
			}
		}
	}
	slices.SortFunc(found, func(a, b *PullRequest) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.Repo.NameWithOwner(), b.Repo.NameWithOwner()), cmp.Compare(b.Number, a.Number))
	})
	src := conn(toAny(found))
	src.extra = map[string]any{"issueCount": len(found), "codeCount": 0, "repositoryCount": 0, "userCount": 0, "wikiCount": 0, "discussionCount": 0}
	return src, nil
}

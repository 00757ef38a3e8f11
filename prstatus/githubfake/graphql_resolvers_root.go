package githubfake

import (
	"strings"
)

func resolveQuery(x *execution, _ any, field string, args map[string]any) (any, error) {
	switch field {
	case "viewer":
		return x.f.accountLocked(x.f.viewer), nil
	case "repository":
		owner, _ := argString(args, "owner")
		name, _ := argString(args, "name")
		r := x.f.repoLocked(owner, name)
		if r == nil {
			return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a Repository with the name '%s/%s'.", owner, name)
		}
		return r, nil
	case "node":
		id, _ := argString(args, "id")
		return x.node(id)
	case "nodes":
		ids := argStrings(args, "ids")
		out := make([]any, len(ids))
		var firstErr error
		for i, id := range ids {
			n, err := x.node(id)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[i] = n
		}
		if firstErr != nil {
			// GitHub returns the list with nulls and an error; the executor reports the error and
			// would null the list, so report it ourselves and keep the list.
			x.errs = append(x.errs, gqlError{Type: ErrTypeNotFound, Path: []any{"nodes"}, Message: firstErr.Error()})
		}
		return out, nil
	case "user":
		login, _ := argString(args, "login")
		for _, acc := range x.f.accounts {
			if acc.Type == TypeUser && strings.EqualFold(acc.Login, login) {
				return acc, nil
			}
		}
		return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a User with the login of '%s'.", login)
	case "search":
		return x.search(args)
	case "rateLimit":
		h := x.f.graphqlRate.headers(x.now)
		return static("RateLimit", map[string]any{
			"cost":      x.cost.cost,
			"limit":     h.limit,
			"remaining": h.remaining,
			"used":      h.used,
			"resetAt":   x.f.graphqlRate.resetAt,
			"nodeCount": x.cost.nodes,
		}), nil
	}
	return nil, errNotImplemented
}

// node finds any object by its global id.
func (x *execution) node(id string) (any, error) {
	if n, ok := x.f.nodes[id]; ok {
		switch n := n.(type) {
		case *ReviewComment:
			if n.Pending && !x.isViewer(n.Author) {
				break
			}
			return n, nil
		default:
			return n, nil
		}
	}
	return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a node with the global id of '%s'", id)
}

func resolveRepository(x *execution, parent any, field string, args map[string]any) (any, error) {
	r := parent.(*Repository)
	switch field {
	case "id":
		return r.ID, nil
	case "databaseId":
		return r.DatabaseID, nil
	case "name":
		return r.Name, nil
	case "nameWithOwner":
		return r.NameWithOwner(), nil
	case "owner":
		return static("Organization", map[string]any{
			"login": r.Owner, "id": r.ownerID, "url": "https://github.com/" + r.Owner,
		}), nil
	case "url":
		return "https://github.com/" + r.NameWithOwner(), nil
	case "resourcePath":
		return "/" + r.NameWithOwner(), nil
	case "createdAt":
		return r.CreatedAt, nil
	case "isPrivate", "isArchived", "isFork", "isDisabled", "isLocked", "isTemplate", "isMirror", "isEmpty":
		return false, nil
	case "deleteBranchOnMerge":
		return r.DeleteBranchOnMerge, nil
	case "autoMergeAllowed":
		return r.AutoMergeAllowed, nil
	case "mergeCommitAllowed", "squashMergeAllowed", "rebaseMergeAllowed":
		return true, nil
	case "viewerPermission":
		return "WRITE", nil
	case "viewerDefaultMergeMethod":
		return "MERGE", nil
	case "defaultBranchRef":
		return refObject(r.DefaultBranch, ""), nil
	case "pullRequest":
		n, _ := argInt(args, "number")
		pr := r.PullRequests[n]
		if pr == nil {
			return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a PullRequest with the number of %d.", n)
		}
		return pr, nil
	case "pullRequests":
		states := argStrings(args, "states")
		var prs []any
		for n := 1; len(prs) < len(r.PullRequests) && n <= maxNumber(r); n++ {
			pr := r.PullRequests[n]
			if pr == nil {
				continue
			}
			if len(states) > 0 && !contains(states, string(pr.State)) {
				continue
			}
			prs = append(prs, pr)
		}
		return conn(prs), nil
	}
	return resolveRepoConversation(x, r, field, args)
}

func maxNumber(r *Repository) int {
	m := 0
	for n := range r.PullRequests {
		m = max(m, n)
	}
	return m
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// refObject is a git ref (Ref) with just its name and target.
func refObject(name, oid string) *staticObject {
	fields := map[string]any{
		"name":   name,
		"prefix": "refs/heads/",
		"id":     "REF_" + strings.ReplaceAll(name, "/", "_"),
	}
	if oid != "" {
		fields["target"] = &Commit{OID: oid}
	}
	return static("Ref", fields)
}

func resolveAccount(x *execution, parent any, field string, _ map[string]any) (any, error) {
	a := parent.(*account)
	switch field {
	case "login":
		return a.Login, nil // GraphQL: no "[bot]" suffix, ever
	case "id":
		return a.NodeID, nil
	case "databaseId":
		return a.DatabaseID, nil
	case "name":
		if a.Type == TypeUser {
			return a.Login, nil
		}
	case "url":
		if a.IsBot() {
			return "https://github.com/apps/" + a.Login, nil
		}
		return "https://github.com/" + a.Login, nil
	case "resourcePath":
		if a.IsBot() {
			return "/apps/" + a.Login, nil
		}
		return "/" + a.Login, nil
	case "avatarUrl":
		return "https://avatars.githubusercontent.com/u/" + i64toa(a.DatabaseID) + "?v=4", nil
	case "isViewer":
		return x.isViewer(a.Actor), nil
	case "createdAt", "updatedAt":
		return a.CreatedAt, nil
	case "email":
		if a.Type == TypeUser {
			return "", nil
		}
		return nil, nil
	case "isSiteAdmin", "isEmployee", "isHireable", "isBountyHunter", "isCampusExpert",
		"isDeveloperProgramMember", "isGitHubStar", "isFollowingViewer", "viewerIsFollowing":
		if a.Type == TypeUser {
			return false, nil
		}
	}
	return nil, errNotImplemented
}

func resolveTeam(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	t := parent.(*teamAccount)
	switch field {
	case "id":
		return t.NodeID, nil
	case "databaseId":
		return t.DatabaseID, nil
	case "slug", "name":
		return t.Slug, nil
	case "combinedSlug":
		return t.String(), nil
	case "url":
		return "https://github.com/orgs/" + t.Org + "/teams/" + t.Slug, nil
	case "resourcePath":
		return "/orgs/" + t.Org + "/teams/" + t.Slug, nil
	case "organization":
		return static("Organization", map[string]any{
			"login": t.Org, "id": t.OrgNodeID, "name": t.Org, "url": "https://github.com/" + t.Org,
		}), nil
	}
	return nil, errNotImplemented
}

package githubfake

import (
	"crypto/sha1"
	"encoding/hex"
	"slices"
	"strings"
)

func resolvePullRequest(x *execution, parent any, field string, args map[string]any) (any, error) {
	pr := parent.(*PullRequest)
	switch field {
	case "id":
		return pr.ID, nil
	case "number":
		return pr.Number, nil
	case "databaseId":
		return pr.DatabaseID, nil
	case "fullDatabaseId":
		return i64toa(pr.DatabaseID), nil
	case "title":
		return pr.Title, nil
	case "body", "bodyText":
		return pr.Body, nil
	case "url", "permalink":
		return pr.URL(), nil
	case "resourcePath":
		return "/" + pr.Repo.NameWithOwner() + "/pull/" + itoa(pr.Number), nil
	case "checksUrl":
		return pr.URL() + "/checks", nil
	case "author":
		return x.actor(pr.Author), nil
	case "authorAssociation":
		return x.f.association(pr.Author), nil
	case "viewerDidAuthor":
		return x.isViewer(pr.Author), nil
	case "state":
		return string(pr.State), nil
	case "merged":
		return pr.State == PRStateMerged, nil
	case "closed":
		return pr.State != PRStateOpen, nil
	case "isDraft":
		return pr.IsDraft, nil
	case "isCrossRepository":
		return pr.CrossRepository, nil
	case "headRepositoryOwner":
		if !pr.CrossRepository {
			return resolveRepository(x, pr.Repo, "owner", nil)
		}
		if pr.HeadOwner == "" {
			return x.actor(pr.Author), nil
		}
		return x.actor(Actor{Login: pr.HeadOwner}), nil
	case "locked", "maintainerCanModify",
		"createdViaEmail", "includesCreatedEdit", "viewerCanMergeAsAdmin":
		return false, nil
	case "isMergeQueueEnabled":
		_, queue := baseRules(pr)
		return queue, nil
	case "isInMergeQueue":
		return pr.Queued != nil, nil
	case "autoMergeRequest":
		return x.autoMergeObject(pr), nil
	case "mergeQueueEntry":
		return x.queueEntryObject(pr), nil
	case "viewerCanEnableAutoMerge":
		return pr.Repo.AutoMergeAllowed && pr.State == PRStateOpen && pr.AutoMerge == nil, nil
	case "viewerCanDisableAutoMerge":
		return pr.AutoMerge != nil, nil
	case "viewerCanUpdate", "viewerCanClose", "viewerCanReopen", "viewerCanUpdateBranch":
		return true, nil
	case "activeLockReason", "potentialMergeCommit", "lastEditedAt", "editor", "milestone":
		return nil, nil
	case "headRefName":
		return pr.HeadRef, nil
	case "baseRefName":
		return pr.BaseRef, nil
	case "headRefOid":
		return pr.HeadOID(), nil
	case "baseRefOid":
		return pr.BaseOID, nil
	case "headRef":
		return refObject(pr.HeadRef, pr.HeadOID()), nil
	case "baseRef":
		return x.baseRefObject(pr), nil
	case "repository", "baseRepository", "headRepository":
		return pr.Repo, nil
	case "mergeable":
		return string(pr.Mergeable), nil
	case "mergeStateStatus":
		return x.f.mergeStateStatus(pr), nil
	case "reviewDecision":
		if d, ok := x.f.reviewDecision(pr); ok {
			return d, nil
		}
		return nil, nil
	case "createdAt", "publishedAt":
		return pr.CreatedAt, nil
	case "updatedAt":
		return pr.UpdatedAt, nil
	case "closedAt":
		return timeOrNil(pr.ClosedAt), nil
	case "mergedAt":
		return timeOrNil(pr.MergedAt), nil
	case "mergedBy":
		return x.actor(pr.MergedBy), nil
	case "mergeCommit":
		if pr.MergeCommitOID == "" {
			return nil, nil
		}
		return &Commit{OID: pr.MergeCommitOID, pr: pr, Headline: "Merge pull request #" + itoa(pr.Number),
			AuthoredDate: pr.MergedAt, CommittedDate: pr.MergedAt}, nil
	case "additions":
		return 12 * len(pr.Commits), nil
	case "deletions":
		return 3 * len(pr.Commits), nil
	case "changedFiles":
		return min(len(pr.Commits), 40), nil
	case "totalCommentsCount":
		n := 0
		for _, t := range pr.Threads {
			n += len(t.Visible())
		}
		return n, nil
	case "commits":
		items := make([]any, len(pr.Commits))
		for i, c := range pr.Commits {
			items[i] = prCommit{c: c}
		}
		return conn(items), nil
	case "reviews":
		return conn(filterReviews(visibleReviews(pr, x.f.viewer), args)), nil
	case "latestReviews":
		return conn(toAny(latestSubmitted(pr))), nil
	case "latestOpinionatedReviews":
		return conn(toAny(latestOpinionated(pr))), nil
	case "viewerLatestReview":
		var latest *Review
		for _, r := range pr.Reviews {
			if x.isViewer(r.Author) && r.State != ReviewStatePending {
				latest = r
			}
		}
		if latest == nil {
			return nil, nil
		}
		return latest, nil
	case "reviewThreads":
		return conn(toAny(pr.Threads)), nil
	case "reviewRequests":
		return conn(toAny(pr.ReviewRequests)), nil
	case "statusCheckRollup":
		if _, ok := rollupState(pr.Head()); !ok {
			return nil, nil
		}
		return rollup{c: pr.Head()}, nil
	}
	return resolveConversation(x, &pr.Conversation, field, args)
}

// filterReviews applies reviews(author:, states:).
func filterReviews(reviews []*Review, args map[string]any) []any {
	author, _ := argString(args, "author")
	states := argStrings(args, "states")
	var out []any
	for _, r := range reviews {
		if author != "" && !strings.EqualFold(author, r.Author.Login) && !strings.EqualFold(author, r.Author.RESTLogin()) {
			continue
		}
		if len(states) > 0 && !contains(states, string(r.State)) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func resolvePRCommit(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	pc := parent.(prCommit)
	switch field {
	case "id":
		return pc.c.NodeID + "_pr", nil
	case "commit":
		return pc.c, nil
	case "url":
		return pc.c.pr.URL() + "/commits/" + pc.c.OID, nil
	case "resourcePath":
		return "/" + pc.c.pr.Repo.NameWithOwner() + "/pull/" + itoa(pc.c.pr.Number) + "/commits/" + pc.c.OID, nil
	case "pullRequest":
		return pc.c.pr, nil
	}
	return nil, errNotImplemented
}

func resolveCommit(x *execution, parent any, field string, _ map[string]any) (any, error) {
	c := parent.(*Commit)
	switch field {
	case "oid":
		return c.OID, nil
	case "abbreviatedOid":
		return shortOID(c.OID), nil
	case "id":
		if c.NodeID != "" {
			return c.NodeID, nil
		}
		return "C_kwDO" + shortOID(c.OID), nil
	case "message":
		return c.Message(), nil
	case "messageHeadline":
		return c.Headline, nil
	case "messageBody":
		return c.Body, nil
	case "authoredDate":
		return c.AuthoredDate, nil
	case "committedDate":
		return c.CommittedDate, nil
	case "pushedDate":
		return nil, nil
	case "authoredByCommitter":
		return c.AuthoredDate.Equal(c.CommittedDate), nil
	case "committedViaWeb":
		return false, nil
	case "parents":
		items := make([]any, len(c.Parents))
		for i, p := range c.Parents {
			if c.pr != nil {
				items[i] = commitByOID(c.pr, p)
			} else {
				items[i] = &Commit{OID: p}
			}
		}
		return conn(items), nil
	case "author":
		return x.gitActor(c.Author, c.AuthoredDate), nil
	case "committer":
		return x.gitActor(c.Author, c.CommittedDate), nil
	case "url", "commitUrl":
		if c.pr == nil {
			return nil, errNotImplemented
		}
		return "https://github.com/" + c.pr.Repo.NameWithOwner() + "/commit/" + c.OID, nil
	case "resourcePath", "commitResourcePath":
		if c.pr == nil {
			return nil, errNotImplemented
		}
		return "/" + c.pr.Repo.NameWithOwner() + "/commit/" + c.OID, nil
	case "repository":
		if c.pr == nil {
			return nil, errNotImplemented
		}
		return c.pr.Repo, nil
	case "tree":
		sum := sha1.Sum([]byte("tree/" + c.OID))
		return static("Tree", map[string]any{"oid": hex.EncodeToString(sum[:])}), nil
	case "statusCheckRollup":
		if _, ok := rollupState(c); !ok {
			return nil, nil
		}
		return rollup{c: c}, nil
	}
	return nil, errNotImplemented
}

// gitActor is a commit's author or committer (GitActor).
func (x *execution) gitActor(a Actor, date any) any {
	fields := map[string]any{"name": nil, "email": nil, "date": date, "user": nil}
	if !a.zero() {
		fields["name"] = a.Login
		fields["email"] = a.Login + "@users.noreply.github.com"
		if a.Type == TypeUser {
			fields["user"] = x.f.accountLocked(a)
		}
	}
	return static("GitActor", fields)
}

func resolveReviewRequest(x *execution, parent any, field string, _ map[string]any) (any, error) {
	rr := parent.(*ReviewRequest)
	switch field {
	case "id":
		return rr.ID, nil
	case "databaseId":
		return rr.DatabaseID, nil
	case "asCodeOwner":
		return rr.AsCodeOwner, nil
	case "pullRequest":
		return rr.pr, nil
	case "requestedReviewer":
		if rr.Team.Slug != "" {
			return x.f.teamLocked(rr.Team), nil
		}
		return x.actor(rr.Reviewer), nil
	}
	return nil, errNotImplemented
}

// baseRefObject is the base branch's Ref: its tip, and what it requires before a merge (its
// protection rule, shown to administrators only, GitHub's view of it for everyone, and the
// rulesets' rules).
func (x *execution) baseRefObject(pr *PullRequest) *staticObject {
	ref := refObject(pr.BaseRef, baseTipLocked(pr))
	if c, ok := pr.Repo.TipCommits[baseTipLocked(pr)]; ok {
		ref.fields["target"] = c
	}
	prot := pr.Repo.Protections[pr.BaseRef]
	ref.fields["branchProtectionRule"] = nil
	if !x.f.notAdmin {
		ref.fields["branchProtectionRule"] = protectionObject("BranchProtectionRule", pr.BaseRef, prot)
	}
	ref.fields["refUpdateRule"] = protectionObject("RefUpdateRule", pr.BaseRef, prot)
	ref.fields["rules"] = conn(ruleNodes(pr.Repo, pr.BaseRef))
	ref.fields["associatedPullRequests"] = conn(headedBy(pr.Repo, pr.BaseRef))
	return ref
}

// headedBy are the repository's open pull requests whose head branch is branch, by number (a Ref's
// associatedPullRequests(states: OPEN)).
func headedBy(repo *Repository, branch string) []any {
	var prs []*PullRequest
	for _, p := range repo.PullRequests {
		if p.State == PRStateOpen && p.HeadRef == branch && !p.CrossRepository {
			prs = append(prs, p)
		}
	}
	slices.SortFunc(prs, func(a, b *PullRequest) int { return a.Number - b.Number })
	out := make([]any, len(prs))
	for i, p := range prs {
		out[i] = p
	}
	return out
}

package githubfake

import ()

func resolveReview(x *execution, parent any, field string, _ map[string]any) (any, error) {
	r := parent.(*Review)
	switch field {
	case "id":
		return r.ID, nil
	case "databaseId":
		return r.DatabaseID, nil
	case "fullDatabaseId":
		return i64toa(r.DatabaseID), nil
	case "author":
		return x.actor(r.Author), nil
	case "authorAssociation":
		return x.f.association(r.Author), nil
	case "authorCanPushToRepository":
		return !r.Author.IsBot(), nil
	case "viewerDidAuthor":
		return x.isViewer(r.Author), nil
	case "body", "bodyText":
		return r.Body, nil
	case "state":
		return string(r.State), nil
	case "submittedAt", "publishedAt":
		return timeOrNil(r.SubmittedAt), nil
	case "createdAt":
		return r.CreatedAt, nil
	case "updatedAt":
		if !r.SubmittedAt.IsZero() {
			return r.SubmittedAt, nil
		}
		return r.CreatedAt, nil
	case "lastEditedAt", "minimizedReason", "editor":
		return nil, nil
	case "isMinimized", "includesCreatedEdit", "createdViaEmail":
		return false, nil
	case "commit":
		if r.CommitOID == "" {
			return nil, nil
		}
		return commitByOID(r.pr, r.CommitOID), nil
	case "url":
		return r.URL(), nil
	case "resourcePath":
		return "/" + r.pr.Repo.NameWithOwner() + "/pull/" + itoa(r.pr.Number) + "#pullrequestreview-" + i64toa(r.DatabaseID), nil
	case "pullRequest":
		return r.pr, nil
	case "repository":
		return r.pr.Repo, nil
	case "comments":
		var items []any
		for _, t := range r.pr.Threads {
			for _, c := range t.Comments {
				if c.ReviewID == r.ID {
					items = append(items, c)
				}
			}
		}
		return conn(items), nil
	}
	return nil, errNotImplemented
}

func resolveThread(x *execution, parent any, field string, _ map[string]any) (any, error) {
	t := parent.(*Thread)
	switch field {
	case "id":
		return t.ID, nil
	case "isResolved":
		return t.IsResolved, nil
	case "isOutdated":
		return t.IsOutdated, nil
	case "isCollapsed":
		return t.IsResolved, nil
	case "path":
		return t.Path, nil
	case "line":
		if t.IsOutdated {
			return nil, nil
		}
		return intOrNil(t.Line), nil
	case "originalLine":
		return intOrNil(t.OriginalLine), nil
	case "startLine":
		if t.IsOutdated {
			return nil, nil
		}
		return intOrNil(t.StartLine), nil
	case "originalStartLine":
		return intOrNil(t.StartLine), nil
	case "diffSide":
		return "RIGHT", nil
	case "startDiffSide":
		if t.StartLine == 0 {
			return nil, nil
		}
		return "RIGHT", nil
	case "subjectType":
		return subjectType(t), nil
	case "resolvedBy":
		if !t.IsResolved || t.ResolvedBy.Type != TypeUser {
			return nil, nil
		}
		return x.actor(t.ResolvedBy), nil
	case "viewerCanReply", "viewerCanResolve", "viewerCanUnresolve":
		return true, nil
	case "comments":
		return conn(toAny(t.Visible())), nil
	case "pullRequest":
		return t.pr, nil
	case "repository":
		return t.pr.Repo, nil
	}
	return nil, errNotImplemented
}

func subjectType(t *Thread) string {
	if t.Line == 0 && t.OriginalLine == 0 {
		return "FILE"
	}
	return "LINE"
}

func resolveComment(x *execution, parent any, field string, _ map[string]any) (any, error) {
	c := parent.(*ReviewComment)
	t := c.thread
	switch field {
	case "id":
		return c.ID, nil
	case "databaseId":
		return c.DatabaseID, nil
	case "fullDatabaseId":
		return i64toa(c.DatabaseID), nil
	case "author":
		return x.actor(c.Author), nil
	case "authorAssociation":
		return x.f.association(c.Author), nil
	case "viewerDidAuthor":
		return x.isViewer(c.Author), nil
	case "body", "bodyText":
		return c.Body, nil
	case "createdAt", "draftedAt":
		return c.CreatedAt, nil
	case "updatedAt":
		return c.UpdatedAt, nil
	case "publishedAt":
		if c.Pending {
			return nil, nil
		}
		return c.CreatedAt, nil
	case "lastEditedAt", "minimizedReason", "editor", "position":
		return nil, nil
	case "isMinimized", "includesCreatedEdit", "createdViaEmail":
		return false, nil
	case "url":
		return c.URL(), nil
	case "resourcePath":
		return "/" + t.pr.Repo.NameWithOwner() + "/pull/" + itoa(t.pr.Number) + "#discussion_r" + i64toa(c.DatabaseID), nil
	case "path":
		return t.Path, nil
	case "line":
		if t.IsOutdated {
			return nil, nil
		}
		return intOrNil(t.Line), nil
	case "originalLine":
		return intOrNil(t.OriginalLine), nil
	case "startLine", "originalStartLine":
		return intOrNil(t.StartLine), nil
	case "originalPosition":
		return max(t.OriginalLine, 1), nil
	case "outdated":
		return t.IsOutdated, nil
	case "subjectType":
		return subjectType(t), nil
	case "diffHunk":
		return "@@ -1,3 +1,4 @@", nil
	case "state":
		if c.Pending {
			return string(ReviewStatePending), nil
		}
		return "SUBMITTED", nil
	case "pullRequestReview":
		if n, ok := x.f.nodes[c.ReviewID].(*Review); ok {
			return n, nil
		}
		return nil, nil
	case "replyTo":
		if c.ReplyTo == 0 {
			return nil, nil
		}
		if rc := x.f.comments[c.ReplyTo]; rc != nil {
			return rc, nil
		}
		return nil, nil
	case "commit", "originalCommit":
		if c.CommitOID == "" {
			return nil, nil
		}
		return commitByOID(t.pr, c.CommitOID), nil
	case "pullRequest":
		return t.pr, nil
	case "repository":
		return t.pr.Repo, nil
	}
	return nil, errNotImplemented
}

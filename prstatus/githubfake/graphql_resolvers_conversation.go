package githubfake

import (
	"slices"
	"strings"
)

// GraphQL for the conversation side of issues and pull requests: Issue, Label, IssueComment,
// LabeledEvent and UnlabeledEvent, the Labelable/Assignable/Comment fields they share, and
// Repository.issues.

func conversationResolvers() map[string]typeResolver {
	return map[string]typeResolver{
		"Issue":          resolveIssue,
		"Label":          resolveLabel,
		"IssueComment":   resolveIssueComment,
		"LabeledEvent":   resolveLabelEvent,
		"UnlabeledEvent": resolveLabelEvent,
	}
}

// conversationTypeName is the GraphQL type of a conversation value ("" for any other value).
func conversationTypeName(v any) string {
	switch v := v.(type) {
	case *Issue:
		return "Issue"
	case *Label:
		return "Label"
	case *IssueComment:
		return "IssueComment"
	case *LabelEvent:
		if v.Removed {
			return "UnlabeledEvent"
		}
		return "LabeledEvent"
	}
	return ""
}

// resolveConversation answers the fields issues and pull requests share.
func resolveConversation(x *execution, c *Conversation, field string, args map[string]any) (any, error) {
	switch field {
	case "labels":
		return conn(toAny(c.Labels)), nil
	case "assignees":
		out := make([]any, len(c.Assignees))
		for i, a := range c.Assignees {
			out[i] = x.actor(a)
		}
		return conn(out), nil
	case "comments":
		return conn(toAny(c.Comments)), nil
	case "timelineItems":
		return timelineItems(c, args)
	}
	return nil, errNotImplemented
}

// timelineItems models label events only: asking for any other item type, or for all of them,
// is a loud error rather than a silently short timeline.
func timelineItems(c *Conversation, args map[string]any) (any, error) {
	types := argStrings(args, "itemTypes")
	if len(types) == 0 {
		return nil, newFieldError("", "githubfake: timelineItems without itemTypes is not implemented (only LABELED_EVENT and UNLABELED_EVENT are modelled)")
	}
	for _, t := range types {
		if t != "LABELED_EVENT" && t != "UNLABELED_EVENT" {
			return nil, newFieldError("", "githubfake: timeline item type %s is not implemented (only LABELED_EVENT and UNLABELED_EVENT are modelled)", t)
		}
	}
	var out []any
	for _, ev := range c.Timeline {
		want := "LABELED_EVENT"
		if ev.Removed {
			want = "UNLABELED_EVENT"
		}
		if slices.Contains(types, want) {
			out = append(out, ev)
		}
	}
	return conn(out), nil
}

func resolveIssue(x *execution, parent any, field string, args map[string]any) (any, error) {
	is := parent.(*Issue)
	switch field {
	case "id":
		return is.ID, nil
	case "number":
		return is.Number, nil
	case "databaseId":
		return is.DatabaseID, nil
	case "fullDatabaseId":
		return i64toa(is.DatabaseID), nil
	case "title":
		return is.Title, nil
	case "body", "bodyText":
		return is.Body, nil
	case "url":
		return is.URL(), nil
	case "resourcePath":
		return "/" + is.Repo.NameWithOwner() + "/issues/" + itoa(is.Number), nil
	case "state":
		return is.State, nil
	case "closed":
		return is.State != "OPEN", nil
	case "author":
		return x.actor(is.Author), nil
	case "authorAssociation":
		return x.f.association(is.Author), nil
	case "createdAt", "publishedAt":
		return is.CreatedAt, nil
	case "updatedAt":
		return is.UpdatedAt, nil
	case "repository":
		return is.Repo, nil
	}
	return resolveConversation(x, &is.Conversation, field, args)
}

func resolveLabel(_ *execution, parent any, field string, _ map[string]any) (any, error) {
	l := parent.(*Label)
	switch field {
	case "id":
		return l.ID, nil
	case "name":
		return l.Name, nil
	case "color":
		return l.Color, nil
	case "description":
		return stringOrNil(l.Description), nil
	case "isDefault":
		return false, nil
	case "createdAt", "updatedAt":
		return l.CreatedAt, nil
	}
	return nil, errNotImplemented
}

func resolveIssueComment(x *execution, parent any, field string, _ map[string]any) (any, error) {
	c := parent.(*IssueComment)
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
	case "body", "bodyText":
		return c.Body, nil
	case "createdAt", "publishedAt":
		return c.CreatedAt, nil
	case "updatedAt":
		return c.UpdatedAt, nil
	case "url":
		return c.url, nil
	case "viewerDidAuthor":
		return x.isViewer(c.Author), nil
	case "isMinimized":
		return false, nil
	}
	return nil, errNotImplemented
}

func resolveLabelEvent(x *execution, parent any, field string, _ map[string]any) (any, error) {
	ev := parent.(*LabelEvent)
	switch field {
	case "id":
		return ev.ID, nil
	case "createdAt":
		return ev.CreatedAt, nil
	case "actor":
		return x.actor(ev.Actor), nil
	case "label":
		return ev.Label, nil
	}
	return nil, errNotImplemented
}

// resolveRepoConversation answers Repository.issues: states and labels (an issue with any of
// them) filter, orderBy CREATED_AT in either direction. filterBy is not modelled: a loud error.
func resolveRepoConversation(_ *execution, r *Repository, field string, args map[string]any) (any, error) {
	if field != "issues" {
		return nil, errNotImplemented
	}
	if args["filterBy"] != nil {
		return nil, newFieldError("", "githubfake: Repository.issues(filterBy:) is not implemented")
	}
	desc := false
	if order := argObject(args, "orderBy"); order != nil {
		if order["field"] != "CREATED_AT" {
			return nil, newFieldError("", "githubfake: Repository.issues(orderBy: %v) is not implemented (CREATED_AT only)", order["field"])
		}
		desc = order["direction"] == "DESC"
	}
	states, labels := argStrings(args, "states"), argStrings(args, "labels")
	var out []any
	for n := 1; n <= maxIssueNumber(r); n++ {
		is := r.issueLocked(n)
		if is == nil || (len(states) > 0 && !contains(states, is.State)) {
			continue
		}
		if len(labels) > 0 && !slices.ContainsFunc(labels, func(l string) bool { return is.label(strings.TrimSpace(l)) != nil }) {
			continue
		}
		out = append(out, is)
	}
	if desc {
		slices.Reverse(out)
	}
	return conn(out), nil
}

func maxIssueNumber(r *Repository) int {
	m := 0
	for n := range r.Issues {
		m = max(m, n)
	}
	return m
}

package githubfake

import (
	"strings"
)

// resolveMutation runs the mutations the fake models. Closing a pull request or deleting a ref is
// refused and recorded (Forbidden); any other mutation GitHub has is "not implemented".
func resolveMutation(x *execution, _ any, field string, args map[string]any) (any, error) {
	input := argObject(args, "input")
	cmid := input["clientMutationId"]
	switch field {
	case "resolveReviewThread", "unresolveReviewThread":
		t, err := x.thread(input, "threadId")
		if err != nil {
			return nil, err
		}
		x.f.setResolvedLocked(t, x.f.viewer, field == "resolveReviewThread")
		return static(payloadType(field), map[string]any{"clientMutationId": cmid, "thread": t}), nil

	case "addPullRequestReviewThreadReply":
		t, err := x.thread(input, "pullRequestReviewThreadId")
		if err != nil {
			return nil, err
		}
		body, _ := input["body"].(string)
		if strings.TrimSpace(body) == "" {
			return nil, newFieldError(ErrTypeUnprocessable, "Body can't be blank")
		}
		var c *ReviewComment
		if rid, ok := input["pullRequestReviewId"].(string); ok && rid != "" {
			r, ok := x.f.nodes[rid].(*Review)
			if !ok || r.pr != t.pr {
				return nil, newFieldError(ErrTypeNotFound, "Could not resolve to PullRequestReview node with the global id of '%s'.", rid)
			}
			c = x.f.addCommentLocked(t, x.f.viewer, body, r)
		} else {
			c = x.f.replyLocked(t, x.f.viewer, body, x.f.pendingReplies)
		}
		return static(payloadType(field), map[string]any{"clientMutationId": cmid, "comment": c}), nil

	case "submitPullRequestReview":
		return x.submitReview(input)

	case "requestReviews":
		pr, err := x.pullRequest(input)
		if err != nil {
			return nil, err
		}
		var users []Actor
		for _, id := range argStrings(input, "userIds") {
			acc, ok := x.f.nodes[id].(*account)
			if !ok {
				return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a node with the global id of '%s'", id)
			}
			users = append(users, acc.Actor)
		}
		var teams []Team
		for _, id := range argStrings(input, "teamIds") {
			ta, ok := x.f.nodes[id].(*teamAccount)
			if !ok {
				return nil, newFieldError(ErrTypeNotFound, "Could not resolve to a node with the global id of '%s'", id)
			}
			teams = append(teams, ta.Team)
		}
		if union, _ := input["union"].(bool); !union {
			pr.ReviewRequests = nil
		}
		x.f.requestReviewsLocked(pr, users, teams)
		return static(payloadType(field), map[string]any{
			"clientMutationId": cmid, "pullRequest": pr, "actor": x.actor(x.f.viewer), "requestedReviewersEdge": nil,
		}), nil

	case "mergePullRequest":
		pr, err := x.pullRequest(input)
		if err != nil {
			return nil, err
		}
		method, _ := input["mergeMethod"].(string)
		sha, _ := input["expectedHeadOid"].(string)
		title, _ := input["commitHeadline"].(string)
		_, refusal, hook := x.f.mergeLocked(pr, strings.ToLower(method), sha, title, KindGraphQL)
		x.after = append(x.after, hook)
		if refusal != nil {
			return nil, newFieldError(ErrTypeUnprocessable, "%s", refusal.message)
		}
		return static(payloadType(field), map[string]any{"clientMutationId": cmid, "pullRequest": pr, "actor": x.actor(x.f.viewer)}), nil

	case "enablePullRequestAutoMerge", "disablePullRequestAutoMerge", "enqueuePullRequest":
		return x.mergeLaterMutation(field, input)

	case "updatePullRequest":
		pr, err := x.pullRequest(input)
		if err != nil {
			return nil, err
		}
		if state, _ := input["state"].(string); state == "CLOSED" {
			return nil, x.forbid("close pull request", field)
		}
		if title, ok := input["title"].(string); ok {
			pr.Title = title
		}
		if body, ok := input["body"].(string); ok {
			pr.Body = body
		}
		pr.UpdatedAt = x.now
		return static(payloadType(field), map[string]any{"clientMutationId": cmid, "pullRequest": pr, "actor": x.actor(x.f.viewer)}), nil

	case "closePullRequest":
		return nil, x.forbid("close pull request", field)
	case "deleteRef":
		return nil, x.forbid("delete branch", field)
	case "updateRefs":
		return nil, x.forbid("delete branch", field+" (may delete refs)")
	}
	return nil, errNotImplemented
}

func payloadType(mutation string) string {
	return strings.ToUpper(mutation[:1]) + mutation[1:] + "Payload"
}

func (x *execution) forbid(what, detail string) error {
	x.f.forbidLocked(KindGraphQL, "POST", "/graphql", what, detail)
	return newFieldError(ErrTypeForbidden, "githubfake: refused %s: prmonitor must never close a pull request or delete a branch", detail)
}

func (x *execution) thread(input map[string]any, key string) (*Thread, error) {
	id, _ := input[key].(string)
	t, ok := x.f.nodes[id].(*Thread)
	if !ok {
		return nil, newFieldError(ErrTypeNotFound, "Could not resolve to PullRequestReviewThread node with the global id of '%s'.", id)
	}
	return t, nil
}

func (x *execution) pullRequest(input map[string]any) (*PullRequest, error) {
	id, _ := input["pullRequestId"].(string)
	pr, ok := x.f.nodes[id].(*PullRequest)
	if !ok {
		return nil, newFieldError(ErrTypeNotFound, "Could not resolve to PullRequest node with the global id of '%s'.", id)
	}
	return pr, nil
}

// submitReview submits the viewer's pending review (by id, or the one on pullRequestId).
func (x *execution) submitReview(input map[string]any) (any, error) {
	var review *Review
	if rid, _ := input["pullRequestReviewId"].(string); rid != "" {
		r, ok := x.f.nodes[rid].(*Review)
		if !ok {
			return nil, newFieldError(ErrTypeNotFound, "Could not resolve to PullRequestReview node with the global id of '%s'.", rid)
		}
		review = r
	} else {
		pr, err := x.pullRequest(input)
		if err != nil {
			return nil, err
		}
		for _, r := range pr.Reviews {
			if r.State == ReviewStatePending && x.isViewer(r.Author) {
				review = r
			}
		}
		if review == nil {
			return nil, newFieldError(ErrTypeUnprocessable, "There is no pending review to submit on this pull request.")
		}
	}
	if review.State != ReviewStatePending {
		return nil, newFieldError(ErrTypeUnprocessable, "Can not submit a review that is not pending.")
	}
	state := ReviewStateCommented
	switch input["event"] {
	case "APPROVE":
		state = ReviewStateApproved
	case "REQUEST_CHANGES":
		state = ReviewStateChangesRequested
	case "DISMISS":
		state = ReviewStateDismissed
	}
	body, _ := input["body"].(string)
	x.f.submitReviewLocked(review, state, body)
	return static("SubmitPullRequestReviewPayload", map[string]any{
		"clientMutationId": input["clientMutationId"], "pullRequestReview": review,
	}), nil
}

// mergeLaterMutation enables or disables auto-merge, or adds a pull request to its merge queue.
func (x *execution) mergeLaterMutation(field string, input map[string]any) (any, error) {
	pr, err := x.pullRequest(input)
	if err != nil {
		return nil, err
	}
	cmid := input["clientMutationId"]
	head, _ := input["expectedHeadOid"].(string)
	switch field {
	case "enablePullRequestAutoMerge":
		method, _ := input["mergeMethod"].(string)
		if err := x.f.enableAutoMergeLocked(pr, method, head); err != nil {
			return nil, err
		}
	case "disablePullRequestAutoMerge":
		if err := x.f.disableAutoMergeLocked(pr); err != nil {
			return nil, err
		}
	default:
		if _, err := x.f.enqueueLocked(pr, head); err != nil {
			return nil, err
		}
		return static(payloadType(field), map[string]any{"clientMutationId": cmid, "mergeQueueEntry": x.queueEntryObject(pr)}), nil
	}
	return static(payloadType(field), map[string]any{"clientMutationId": cmid, "pullRequest": pr, "actor": x.actor(x.f.viewer)}), nil
}

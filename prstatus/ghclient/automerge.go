package ghclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Auto-merge and merge queues (GraphQL enablePullRequestAutoMerge, disablePullRequestAutoMerge,
// enqueuePullRequest): a merge GitHub does later by itself, once the base branch's requirements
// are met. Like Merge, each is the user's own choice, pinned to the head they saw
// (expectedHeadOid), sent once and never re-sent: the pull request is read first (nothing is sent
// when it is already as asked, or its head moved), and when the answer is lost (a 5xx, a dropped
// connection, a timeout) it is read again after a short pause to see whether the mutation landed.
// GitHub refusing (auto-merge not allowed, a pull request in clean status that can be merged now,
// a base branch without a merge queue, a requirement not met) is a *MergeRefusedError with
// GitHub's reason.

// AutoMergeRequest is the user's auto-merge, pinned to the head they saw.
type AutoMergeRequest struct {
	Method          string // merge, squash or rebase ("" is merge)
	ExpectedHeadSHA string
}

// LaterResult says how a merge-later write ended: done by this call, already so before it
// (nothing sent), or landed although its answer was lost (Recovered).
type LaterResult struct {
	Already   bool
	Recovered bool
}

// laterState is what the pull request says about auto-merge and its merge queue.
type laterState struct {
	id        string
	head      string
	state     string
	autoMerge bool
	queued    bool
}

// laterStateQuery reads it in one small query:
//
//	query(...){repository(...){pullRequest(number: $number){id,headRefOid,state,
//	  autoMergeRequest{enabledAt},isInMergeQueue}}}
type laterStateQuery struct {
	Repository *struct {
		PullRequest *struct {
			ID               string `graphql:"id"`
			HeadRefOid       string `graphql:"headRefOid"`
			State            string `graphql:"state"`
			AutoMergeRequest *struct {
				EnabledAt *githubv4.DateTime `graphql:"enabledAt"`
			} `graphql:"autoMergeRequest"`
			IsInMergeQueue bool `graphql:"isInMergeQueue"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

func (c *Client) readLaterState(ctx context.Context, ref prstatus.PRRef) (laterState, error) {
	var q laterStateQuery
	if err := c.gql.Query(ctx, &q, refVars(ref)); err != nil {
		return laterState{}, c.callError(err)
	}
	if q.Repository == nil || q.Repository.PullRequest == nil {
		return laterState{}, fmt.Errorf("%w: no such pull request", ErrNotFound)
	}
	pr := q.Repository.PullRequest
	return laterState{id: pr.ID, head: pr.HeadRefOid, state: pr.State, autoMerge: pr.AutoMergeRequest != nil, queued: pr.IsInMergeQueue}, nil
}

// enableAutoMergeMutation enables auto-merge:
//
//	mutation($input:EnablePullRequestAutoMergeInput!){enablePullRequestAutoMerge(input: $input){
//	  pullRequest{autoMergeRequest{enabledAt}}}}
type enableAutoMergeMutation struct {
	EnablePullRequestAutoMerge *struct {
		PullRequest *struct {
			AutoMergeRequest *struct {
				EnabledAt *githubv4.DateTime `graphql:"enabledAt"`
			} `graphql:"autoMergeRequest"`
		} `graphql:"pullRequest"`
	} `graphql:"enablePullRequestAutoMerge(input: $input)"`
}

// disableAutoMergeMutation disables it:
//
//	mutation($input:DisablePullRequestAutoMergeInput!){disablePullRequestAutoMerge(input: $input){
//	  pullRequest{id}}}
type disableAutoMergeMutation struct {
	DisablePullRequestAutoMerge *struct {
		PullRequest *struct {
			ID string `graphql:"id"`
		} `graphql:"pullRequest"`
	} `graphql:"disablePullRequestAutoMerge(input: $input)"`
}

// enqueueMutation adds a pull request to its merge queue:
//
//	mutation($input:EnqueuePullRequestInput!){enqueuePullRequest(input: $input){mergeQueueEntry{id}}}
type enqueueMutation struct {
	EnqueuePullRequest *struct {
		MergeQueueEntry *struct {
			ID string `graphql:"id"`
		} `graphql:"mergeQueueEntry"`
	} `graphql:"enqueuePullRequest(input: $input)"`
}

// EnableAutoMerge turns on auto-merge for the pull request at the expected head: GitHub merges it
// by itself once every requirement of the base branch is met (or adds it to the merge queue, where
// the base requires one). Already enabled is success (Already); a head other than the expected
// one is ErrHeadMoved, with nothing sent.
func (c *Client) EnableAutoMerge(ctx context.Context, ref prstatus.PRRef, r AutoMergeRequest) (LaterResult, error) {
	what := fmt.Sprintf("enable auto-merge on %s", ref)
	m, err := MergeRequest(r).body(ref)
	if err != nil {
		return LaterResult{}, fmt.Errorf("%s: %w", what, err)
	}
	method := githubv4.PullRequestMergeMethod(strings.ToUpper(m.MergeMethod))
	oid := githubv4.GitObjectID(m.SHA)
	return c.mergeLater(ctx, ref, what, m.SHA, laterWrite{
		done: func(st laterState) bool { return st.autoMerge || st.state == "MERGED" },
		send: func(ctx context.Context, id string) error {
			var mu enableAutoMergeMutation
			in := githubv4.EnablePullRequestAutoMergeInput{PullRequestID: githubv4.ID(id), MergeMethod: &method, ExpectedHeadOid: &oid}
			return c.mut.Mutate(ctx, &mu, in, nil)
		},
	})
}

// Enqueue adds the pull request to its base branch's merge queue at the expected head. Already in
// the queue (or merged at that head) is success (Already); a head other than the expected one is
// ErrHeadMoved, with nothing sent.
func (c *Client) Enqueue(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) (LaterResult, error) {
	what := fmt.Sprintf("add %s to the merge queue", ref)
	m, err := MergeRequest{ExpectedHeadSHA: expectedHeadSHA}.body(ref)
	if err != nil {
		return LaterResult{}, fmt.Errorf("%s: %w", what, err)
	}
	oid := githubv4.GitObjectID(m.SHA)
	return c.mergeLater(ctx, ref, what, m.SHA, laterWrite{
		done: func(st laterState) bool { return st.queued || st.state == "MERGED" },
		send: func(ctx context.Context, id string) error {
			var mu enqueueMutation
			in := githubv4.EnqueuePullRequestInput{PullRequestID: githubv4.ID(id), ExpectedHeadOid: &oid}
			return c.mut.Mutate(ctx, &mu, in, nil)
		},
	})
}

// DisableAutoMerge turns auto-merge off. Not enabled (or the pull request no longer open) is
// success (Already), with nothing sent. It needs no head: turning auto-merge off never merges.
func (c *Client) DisableAutoMerge(ctx context.Context, ref prstatus.PRRef) (LaterResult, error) {
	what := fmt.Sprintf("disable auto-merge on %s", ref)
	if err := checkRef(ref); err != nil {
		return LaterResult{}, fmt.Errorf("%s: %w", what, err)
	}
	return c.mergeLater(ctx, ref, what, "", laterWrite{
		done: func(st laterState) bool { return !st.autoMerge || st.state != "OPEN" },
		send: func(ctx context.Context, id string) error {
			var mu disableAutoMergeMutation
			return c.mut.Mutate(ctx, &mu, githubv4.DisablePullRequestAutoMergeInput{PullRequestID: githubv4.ID(id)}, nil)
		},
	})
}

// laterWrite is one of the merge-later mutations: whether the pull request already is as asked,
// and how to send it once.
type laterWrite struct {
	done func(laterState) bool
	send func(ctx context.Context, id string) error
}

// mergeLater reads the pull request, sends w once unless it is already done or (head set) the
// head moved, and reads it again when the answer was lost.
func (c *Client) mergeLater(ctx context.Context, ref prstatus.PRRef, what, head string, w laterWrite) (LaterResult, error) {
	st, err := c.readLaterState(ctx, ref)
	if err != nil {
		return LaterResult{}, fmt.Errorf("%s: read the pull request: %w", what, err)
	}
	if head != "" && !strings.EqualFold(st.head, head) {
		return LaterResult{}, fmt.Errorf("%s: %w: the head is %s now, not %s", what, ErrHeadMoved, text.ShortSHA(st.head), text.ShortSHA(head))
	}
	if w.done(st) {
		return LaterResult{Already: true}, nil
	}
	err = c.callError(w.send(ctx, st.id))
	switch {
	case err == nil:
		c.log.InfoContext(ctx, what, "pr", ref.String(), "head", head)
		return LaterResult{}, nil
	case errors.Is(err, ErrUnavailable) && ctx.Err() == nil:
		if perr := c.pause(ctx); perr != nil {
			return LaterResult{}, fmt.Errorf("%s: %w", what, err)
		}
		again, rerr := c.readLaterState(ctx, ref)
		if rerr != nil {
			return LaterResult{}, fmt.Errorf("%s: %w (and the pull request could not be read again to see whether it landed: %v)", what, err, rerr)
		}
		if w.done(again) && (head == "" || strings.EqualFold(again.head, head)) {
			c.log.InfoContext(ctx, what+": landed although its answer was lost", "pr", ref.String())
			return LaterResult{Recovered: true}, nil
		}
		return LaterResult{}, fmt.Errorf("%s: %w (it did not land)", what, err)
	case refusedByGitHub(err):
		if again, rerr := c.readLaterState(ctx, ref); rerr == nil && w.done(again) {
			return LaterResult{Already: true}, nil // it was so by the time GitHub answered
		}
		return LaterResult{}, fmt.Errorf("%s: %w", what, &MergeRefusedError{Reason: oneLine(err.Error())})
	}
	return LaterResult{}, fmt.Errorf("%s: %w", what, err)
}

// refusedByGitHub reports whether a mutation's error is GitHub's answer (a GraphQL error that is
// not one of the transport's typed failures): a refusal for a reason the user can act on.
func refusedByGitHub(err error) bool {
	for _, typed := range []error{ErrUnavailable, ErrRateLimited, ErrUnauthorized, ErrForbidden, ErrNotFound} {
		if errors.Is(err, typed) {
			return false
		}
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

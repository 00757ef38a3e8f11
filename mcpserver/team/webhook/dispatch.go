package webhook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Events lists the deliveries that reach monitors; subscribe the GitHub App to these.
var Events = []string{"pull_request", "pull_request_review", "pull_request_review_comment",
	"pull_request_review_thread", "check_run", "check_suite", "status", "issue_comment"}

// target is one monitor to signal; start: create it when it is not running, owned by owner (the
// pull request's author).
type target struct {
	ref   prstatus.PRRef
	start bool
	owner string
}

// dispatch signals the monitors a delivery names and returns how many.
func (h *Handler) dispatch(ctx context.Context, event, delivery string, payload []byte) (int, error) {
	if !slices.Contains(Events, event) {
		return 0, nil // ping, installation events and the like: nothing to watch
	}
	parsed, err := github.ParseWebHook(event, payload)
	if err != nil {
		return 0, fmt.Errorf("parse %s delivery: %w", event, err)
	}
	targets, action, err := h.targets(ctx, parsed)
	if err != nil {
		return 0, err
	}
	change := monitorwf.Change{Kind: kind(event, action), Delivery: delivery}
	n := 0
	var errs []error
	for _, t := range targets {
		if t.start {
			change.Owner = t.owner
			if err := h.cfg.Monitors.Notify(ctx, t.ref, change); err != nil {
				errs = append(errs, err)
				continue
			}
			n++
			continue
		}
		ok, err := h.cfg.Monitors.Poke(ctx, t.ref, change)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// targets are the pull requests a delivery is about. A pull request event from someone with
// write access to the repository starts its monitor; every other delivery only pokes a monitor
// already running (work is done only for people with write access, and a check or status event
// says nothing about who wrote the pull request).
func (h *Handler) targets(ctx context.Context, ev any) ([]target, string, error) {
	switch e := ev.(type) {
	case *github.PullRequestEvent:
		return prTarget(e.GetRepo(), e.GetPullRequest()), e.GetAction(), nil
	case *github.PullRequestReviewEvent:
		return prTarget(e.GetRepo(), e.GetPullRequest()), e.GetAction(), nil
	case *github.PullRequestReviewCommentEvent:
		return prTarget(e.GetRepo(), e.GetPullRequest()), e.GetAction(), nil
	case *github.PullRequestReviewThreadEvent:
		return prTarget(e.GetRepo(), e.GetPullRequest()), e.GetAction(), nil
	case *github.IssueCommentEvent:
		if !e.GetIssue().IsPullRequest() {
			return nil, e.GetAction(), nil
		}
		return one(e.GetRepo(), e.GetIssue().GetNumber(), canWrite(e.GetIssue().GetAuthorAssociation()), e.GetIssue().GetUser().GetLogin()), e.GetAction(), nil
	case *github.CheckRunEvent:
		ts, err := h.byCommit(ctx, e.GetRepo(), e.GetCheckRun().PullRequests, e.GetCheckRun().GetHeadSHA())
		return ts, e.GetAction(), err
	case *github.CheckSuiteEvent:
		ts, err := h.byCommit(ctx, e.GetRepo(), e.GetCheckSuite().PullRequests, e.GetCheckSuite().GetHeadSHA())
		return ts, e.GetAction(), err
	case *github.StatusEvent:
		ts, err := h.byCommit(ctx, e.GetRepo(), nil, e.GetSHA())
		return ts, e.GetState(), err
	}
	return nil, "", nil
}

func prTarget(repo *github.Repository, pr *github.PullRequest) []target {
	return one(repo, pr.GetNumber(), canWrite(pr.GetAuthorAssociation()), pr.GetUser().GetLogin())
}

// one is the monitor of one pull request; a monitor it starts belongs to the pull request's
// author (a start without an author starts nothing).
func one(repo *github.Repository, number int, start bool, author string) []target {
	ref, ok := refOf(repo, number)
	if !ok {
		return nil
	}
	return []target{{ref: ref, start: start && author != "", owner: author}}
}

// byCommit: the pull requests the payload lists, else those whose head is sha.
func (h *Handler) byCommit(ctx context.Context, repo *github.Repository, prs []*github.PullRequest, sha string) ([]target, error) {
	var out []target
	add := func(n int) {
		if ref, ok := refOf(repo, n); ok && !slices.ContainsFunc(out, func(t target) bool { return t.ref == ref }) {
			out = append(out, target{ref: ref})
		}
	}
	for _, pr := range prs {
		add(pr.GetNumber())
	}
	if len(out) > 0 || sha == "" || h.cfg.Pulls == nil {
		return out, nil
	}
	numbers, err := h.cfg.Pulls(ctx, repo.GetOwner().GetLogin(), repo.GetName(), sha)
	if err != nil {
		return nil, fmt.Errorf("find the pull requests of commit %.12s: %w", sha, err)
	}
	for _, n := range numbers {
		add(n)
	}
	return out, nil
}

// refOf is the pull request, its identifiers checked as any input is (GitHub's text is data).
func refOf(repo *github.Repository, number int) (prstatus.PRRef, bool) {
	ref, err := prstatus.ParsePRRef(fmt.Sprintf("%s/%s#%d", repo.GetOwner().GetLogin(), repo.GetName(), number))
	return ref, err == nil
}

// canWrite: GitHub's author association says the author can push to the repository.
func canWrite(assoc string) bool { return prstatus.Association(assoc).CanWrite() }

// kind is "event.action", kept to lower-case letters and underscores.
func kind(event, action string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r == '_' {
				return r
			}
			return -1
		}, s)
	}
	if a := clean(action); a != "" {
		return event + "." + a
	}
	return event
}

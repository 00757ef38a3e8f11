package webhook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Events lists the deliveries that reach monitors; subscribe the GitHub App to these.
var Events = []string{"pull_request", "pull_request_review", "pull_request_review_comment",
	"pull_request_review_thread", "check_run", "check_suite", "status", "issue_comment"}

// startActions are the pull_request actions that start a monitor (for an author with write
// access, unless that author stopped it): a pull request that is open and wants work. Every other
// delivery, comments and reviews by anyone and closed included, only signals a running monitor.
var startActions = []string{"opened", "reopened", "ready_for_review", "synchronize"}

// ErrNotVisible is what PullsForCommit wraps when GitHub says the repository or commit is not
// one this installation can see (404, 403, 422): a redelivery would find the same, so the
// delivery is answered "nothing to signal", not as a failure.
var ErrNotVisible = errors.New("the repository or commit is not visible to this installation")

// target is one monitor to signal; start: create it when it is not running (and was not stopped
// by its owner), owned by owner (the pull request's author).
type target struct {
	ref   prstatus.PRRef
	start bool
	owner monitorwf.Owner
}

// outcome is what became of a delivery, as the answer says it.
type outcome struct {
	signalled  int  // monitors signalled or started
	handled    bool // an event type the receiver handles
	notVisible bool // a commit or repository GitHub would not show this installation
}

// dispatch signals the monitors a delivery names.
func (h *Handler) dispatch(ctx context.Context, event string, p payload, change monitorwf.Change) (outcome, error) {
	if !slices.Contains(Events, event) {
		return outcome{}, nil // ping, installation events and the like: nothing to watch
	}
	targets, err := h.targets(ctx, event, p)
	if errors.Is(err, ErrNotVisible) {
		return outcome{handled: true, notVisible: true}, nil
	}
	if err != nil {
		return outcome{handled: true}, err
	}
	out := outcome{handled: true}
	var errs []error
	for _, t := range targets {
		c := change
		var ok bool
		if t.start {
			c.Owner, c.OwnerLogin = t.owner.Key(), t.owner.Login
			ok, err = h.cfg.Monitors.Start(ctx, t.ref, c)
		} else {
			ok, err = h.cfg.Monitors.Poke(ctx, t.ref, c)
		}
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			out.signalled++
		}
	}
	return out, errors.Join(errs...)
}

// targets are the pull requests a delivery is about. A pull request opened, reopened, marked
// ready or pushed to, by an author with write access to the repository, starts its monitor;
// every other delivery only pokes a monitor already running (work is done only for people with
// write access, and a comment, review or check says nothing about whom the work is for).
func (h *Handler) targets(ctx context.Context, event string, p payload) ([]target, error) {
	switch event {
	case "pull_request":
		if p.PullRequest == nil {
			return nil, nil
		}
		pr := p.PullRequest
		start := slices.Contains(startActions, p.Action) && canWrite(pr.AuthorAssociation)
		return one(p.Repository, pr.Number, start, monitorwf.Owner{ID: pr.User.ID, Login: pr.User.Login}), nil
	case "pull_request_review", "pull_request_review_comment", "pull_request_review_thread":
		if p.PullRequest == nil {
			return nil, nil
		}
		return one(p.Repository, p.PullRequest.Number, false, monitorwf.Owner{}), nil
	case "issue_comment":
		if p.Issue == nil || len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null" {
			return nil, nil // a comment on an issue
		}
		return one(p.Repository, p.Issue.Number, false, monitorwf.Owner{}), nil
	case "check_run":
		if p.CheckRun == nil {
			return nil, nil
		}
		return h.byCommit(ctx, p.Repository, p.CheckRun.PullRequests, p.CheckRun.HeadSHA)
	case "check_suite":
		if p.CheckSuite == nil {
			return nil, nil
		}
		return h.byCommit(ctx, p.Repository, p.CheckSuite.PullRequests, p.CheckSuite.HeadSHA)
	case "status":
		return h.byCommit(ctx, p.Repository, nil, p.SHA)
	}
	return nil, nil
}

// one is the monitor of one pull request; a monitor it starts belongs to the pull request's
// author, by GitHub user id (the payload's user.id; a payload without one keys it by the login, as
// before owners had ids), and a start without an author starts nothing.
func one(repo repository, number int, start bool, author monitorwf.Owner) []target {
	ref, ok := refOf(repo, number)
	if !ok {
		return nil
	}
	start = start && author.Valid()
	if !start {
		author = monitorwf.Owner{}
	}
	return []target{{ref: ref, start: start, owner: author}}
}

// byCommit: the pull requests the payload lists, else those whose head is sha.
func (h *Handler) byCommit(ctx context.Context, repo repository, prs []number, sha string) ([]target, error) {
	var out []target
	add := func(n int) {
		if ref, ok := refOf(repo, n); ok && !slices.ContainsFunc(out, func(t target) bool { return t.ref == ref }) {
			out = append(out, target{ref: ref})
		}
	}
	for _, pr := range prs {
		add(pr.Number)
	}
	if len(out) > 0 || sha == "" || h.cfg.Pulls == nil {
		return out, nil
	}
	if _, ok := refOf(repo, 1); !ok {
		return nil, nil // no repository a lookup could name
	}
	numbers, err := h.cfg.Pulls(ctx, repo.Owner.Login, repo.Name, sha)
	if err != nil {
		return nil, fmt.Errorf("find the pull requests of commit %.12s: %w", sha, err)
	}
	for _, n := range numbers {
		add(n)
	}
	return out, nil
}

// refOf is the pull request, its identifiers checked as any input is (GitHub's text is data).
func refOf(repo repository, number int) (prstatus.PRRef, bool) {
	ref, err := prstatus.ParsePRRef(fmt.Sprintf("%s/%s#%d", repo.Owner.Login, repo.Name, number))
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

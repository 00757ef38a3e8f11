package githubfake

import (
	"net/http"
	"strings"
)

// REST endpoints on pull requests: read, reply to a review comment, review requests, merge, and
// the refused ones (closing, deleting a branch).

// restGetPull answers GET .../pulls/{n}. Reading a pull request whose mergeability GitHub has not
// computed starts the computation (the answer still says mergeable null).
func (f *Fake) restGetPull(w http.ResponseWriter, r *http.Request) {
	f.withPull(w, r, func(pr *PullRequest) {
		out := f.restPullLocked(pr)
		f.askMergeabilityLocked(pr)
		writeJSON(w, http.StatusOK, versioned(r, out))
	})
}

// versioned drops from a pull request what the request's API version removed.
func versioned(r *http.Request, pull map[string]any) map[string]any {
	if v, _ := apiVersion(r); v == APIVersion20260310 {
		delete(pull, "merge_commit_sha")
	}
	return pull
}

func (f *Fake) restPatchPull(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	f.withPull(w, r, func(pr *PullRequest) {
		if in.State != nil && strings.EqualFold(*in.State, "closed") {
			f.forbidLocked(KindREST, r.Method, r.URL.Path, "close pull request", pr.Ref().String())
			writeMessage(w, http.StatusForbidden, "githubfake: refused to close "+pr.Ref().String()+": prmonitor must never close a pull request")
			return
		}
		if in.Title != nil {
			pr.Title = *in.Title
		}
		if in.Body != nil {
			pr.Body = *in.Body
		}
		pr.UpdatedAt = f.clock.now()
		writeJSON(w, http.StatusOK, versioned(r, f.restPullLocked(pr)))
	})
}

// restPatchIssue refuses closing a pull request through the issues API (which closes the PR too).
func (f *Fake) restPatchIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		State *string `json:"state"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	f.withPull(w, r, func(pr *PullRequest) {
		if in.State != nil && strings.EqualFold(*in.State, "closed") {
			f.forbidLocked(KindREST, r.Method, r.URL.Path, "close pull request", pr.Ref().String())
			writeMessage(w, http.StatusForbidden, "githubfake: refused to close "+pr.Ref().String()+": prmonitor must never close a pull request")
			return
		}
		writeNotFound(w)
	})
}

func (f *Fake) restDeleteRef(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forbidLocked(KindREST, r.Method, r.URL.Path, "delete branch", r.PathValue("ref"))
	writeMessage(w, http.StatusForbidden, "githubfake: refused to delete "+r.PathValue("ref")+": prmonitor must never delete a branch")
}

func (f *Fake) restListComments(w http.ResponseWriter, r *http.Request) {
	f.withPull(w, r, func(pr *PullRequest) {
		out := []any{}
		for _, t := range pr.Threads {
			for _, c := range t.Visible() {
				out = append(out, f.restCommentLocked(c))
			}
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func (f *Fake) restListReviews(w http.ResponseWriter, r *http.Request) {
	f.withPull(w, r, func(pr *PullRequest) {
		out := []any{}
		for _, rv := range visibleReviews(pr, f.viewer) {
			out = append(out, f.restReviewLocked(rv))
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// restReply posts a reply into the thread of a review comment; it is visible at once.
func (f *Fake) restReply(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	id, ok := pathInt64(r, "comment_id")
	f.replyREST(w, r, id, ok, in.Body)
}

// restCreateComment supports the older way to reply (POST .../comments with in_reply_to, which
// go-github's CreateCommentInReplyTo uses). New top-level review comments are not modelled.
func (f *Fake) restCreateComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body      string `json:"body"`
		InReplyTo int64  `json:"in_reply_to"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	if in.InReplyTo == 0 {
		writeMessage(w, http.StatusUnprocessableEntity, "githubfake: only replies (in_reply_to) are modelled on this endpoint")
		return
	}
	f.replyREST(w, r, in.InReplyTo, true, in.Body)
}

func (f *Fake) replyREST(w http.ResponseWriter, r *http.Request, id int64, ok bool, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pr := f.pullLocked(r)
	c := f.comments[id]
	if !ok || pr == nil || c == nil || c.thread.pr != pr || (c.Pending && !sameActor(c.Author, f.viewer)) {
		writeNotFound(w)
		return
	}
	if strings.TrimSpace(body) == "" {
		validationFailed(w, "PullRequestReviewComment", "body", "missing_field")
		return
	}
	reply := f.replyLocked(c.thread, f.viewer, body, false)
	writeJSON(w, http.StatusCreated, f.restCommentLocked(reply))
}

func (f *Fake) restGetRequested(w http.ResponseWriter, r *http.Request) {
	f.withPull(w, r, func(pr *PullRequest) {
		users, teams := []any{}, []any{}
		for _, rr := range pr.ReviewRequests {
			if rr.Team.Slug != "" {
				teams = append(teams, f.restTeamLocked(rr.Team))
			} else {
				users = append(users, f.restUserLocked(rr.Reviewer))
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"users": users, "teams": teams})
	})
}

type reviewersBody struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

func (f *Fake) reviewersFromBody(pr *PullRequest, in reviewersBody) ([]Actor, []Team) {
	var users []Actor
	for _, login := range in.Reviewers {
		users = append(users, f.findActor(login))
	}
	var teams []Team
	for _, slug := range in.TeamReviewers {
		org, s, ok := strings.Cut(slug, "/")
		if !ok {
			org, s = pr.Repo.Owner, slug
		}
		teams = append(teams, Team{Org: org, Slug: s})
	}
	return users, teams
}

func (f *Fake) restRequestReviewers(w http.ResponseWriter, r *http.Request) {
	var in reviewersBody
	if !decodeBody(w, r, &in) {
		return
	}
	f.withPull(w, r, func(pr *PullRequest) {
		users, teams := f.reviewersFromBody(pr, in)
		for _, u := range users {
			if sameActor(u, pr.Author) {
				writeMessage(w, http.StatusUnprocessableEntity, "Review cannot be requested from pull request author.")
				return
			}
		}
		f.requestReviewsLocked(pr, users, teams)
		writeJSON(w, http.StatusCreated, f.restPullLocked(pr))
	})
}

func (f *Fake) restRemoveReviewers(w http.ResponseWriter, r *http.Request) {
	var in reviewersBody
	if !decodeBody(w, r, &in) {
		return
	}
	f.withPull(w, r, func(pr *PullRequest) {
		users, teams := f.reviewersFromBody(pr, in)
		kept := pr.ReviewRequests[:0]
		for _, rr := range pr.ReviewRequests {
			drop := false
			for _, u := range users {
				drop = drop || (rr.Team.Slug == "" && sameActor(rr.Reviewer, u))
			}
			for _, t := range teams {
				drop = drop || strings.EqualFold(rr.Team.String(), t.String())
			}
			if !drop {
				kept = append(kept, rr)
			}
		}
		pr.ReviewRequests = kept
		writeJSON(w, http.StatusOK, f.restPullLocked(pr))
	})
}

func (f *Fake) restIsMerged(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	pr := f.pullLocked(r)
	merged := pr != nil && !pr.MergedAt.IsZero()
	f.mu.Unlock()
	if !merged {
		writeNotFound(w)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (f *Fake) restMerge(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CommitTitle string `json:"commit_title"`
		SHA         string `json:"sha"`
		MergeMethod string `json:"merge_method"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	f.mu.Lock()
	pr := f.pullLocked(r)
	if pr == nil {
		f.mu.Unlock()
		writeNotFound(w)
		return
	}
	_, refusal, hook := f.mergeLocked(pr, in.MergeMethod, in.SHA, in.CommitTitle, KindREST)
	sha := pr.MergeCommitOID
	f.mu.Unlock()
	hook()
	if refusal != nil {
		writeMessage(w, refusal.status, refusal.message)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": sha, "merged": true, "message": "Pull Request successfully merged"})
}

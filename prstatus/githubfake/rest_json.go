package githubfake

import (
	"strings"
	"time"
)

// REST representations, shaped like GitHub's (the fields prmonitor and go-github read, and their
// obvious neighbours). REST logins of bots end in "[bot]".

const apiBase = "https://api.github.com"

func restTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func (f *Fake) restUserLocked(a Actor) map[string]any {
	if a.zero() {
		return nil
	}
	acc := f.accountLocked(a)
	html := "https://github.com/" + a.Login
	if a.IsBot() {
		html = "https://github.com/apps/" + a.Login
	}
	return map[string]any{
		"login":      a.RESTLogin(),
		"id":         acc.DatabaseID,
		"node_id":    acc.NodeID,
		"type":       string(a.Type),
		"site_admin": false,
		"html_url":   html,
		"url":        apiBase + "/users/" + a.RESTLogin(),
		"avatar_url": "https://avatars.githubusercontent.com/u/" + i64toa(acc.DatabaseID) + "?v=4",
	}
}

func (f *Fake) restTeamLocked(t Team) map[string]any {
	ta := f.teamLocked(t)
	return map[string]any{
		"id": ta.DatabaseID, "node_id": ta.NodeID, "slug": t.Slug, "name": t.Slug,
		"html_url": "https://github.com/orgs/" + t.Org + "/teams/" + t.Slug,
	}
}

func (f *Fake) restRepoLocked(r *Repository) map[string]any {
	return map[string]any{
		"id": r.DatabaseID, "node_id": r.ID, "name": r.Name, "full_name": r.NameWithOwner(),
		"private": false, "html_url": "https://github.com/" + r.NameWithOwner(),
		"url": apiBase + "/repos/" + r.NameWithOwner(), "default_branch": r.DefaultBranch,
		"owner": map[string]any{"login": r.Owner, "node_id": r.ownerID, "type": "Organization"},
	}
}

func (f *Fake) restPullLocked(pr *PullRequest) map[string]any {
	api := apiBase + "/repos/" + pr.Repo.NameWithOwner() + "/pulls/" + itoa(pr.Number)
	state := "open"
	if pr.State != PRStateOpen {
		state = "closed"
	}
	var mergeable any
	switch pr.Mergeable {
	case MergeableStateMergeable:
		mergeable = true
	case MergeableStateConflicting:
		mergeable = false
	}
	users := []any{}
	teams := []any{}
	for _, rr := range pr.ReviewRequests {
		if rr.Team.Slug != "" {
			teams = append(teams, f.restTeamLocked(rr.Team))
		} else {
			users = append(users, f.restUserLocked(rr.Reviewer))
		}
	}
	comments := 0
	for _, t := range pr.Threads {
		comments += len(t.Visible())
	}
	var mergeSHA any
	if pr.MergeCommitOID != "" {
		mergeSHA = pr.MergeCommitOID
	}
	repo := f.restRepoLocked(pr.Repo)
	return map[string]any{
		"url": api, "id": pr.DatabaseID, "node_id": pr.ID, "html_url": pr.URL(), "number": pr.Number,
		"state": state, "locked": false, "title": pr.Title, "body": pr.Body, "user": f.restUserLocked(pr.Author),
		"created_at": restTime(pr.CreatedAt), "updated_at": restTime(pr.UpdatedAt),
		"closed_at": restTime(pr.ClosedAt), "merged_at": restTime(pr.MergedAt), "merge_commit_sha": mergeSHA,
		"draft": pr.IsDraft, "merged": pr.State == PRStateMerged, "mergeable": mergeable,
		"mergeable_state": strings.ToLower(f.mergeStateStatus(pr)), "merged_by": f.restUserLocked(pr.MergedBy),
		"head":                map[string]any{"ref": pr.HeadRef, "sha": pr.HeadOID(), "label": pr.Repo.Owner + ":" + pr.HeadRef, "repo": repo},
		"base":                map[string]any{"ref": pr.BaseRef, "sha": pr.BaseOID, "label": pr.Repo.Owner + ":" + pr.BaseRef, "repo": repo},
		"requested_reviewers": users, "requested_teams": teams,
		"comments": 0, "review_comments": comments, "commits": len(pr.Commits),
		"additions": 12 * len(pr.Commits), "deletions": 3 * len(pr.Commits), "changed_files": min(len(pr.Commits), 40),
		"author_association": f.association(pr.Author),
	}
}

func (f *Fake) restCommentLocked(c *ReviewComment) map[string]any {
	t := c.thread
	pr := t.pr
	api := apiBase + "/repos/" + pr.Repo.NameWithOwner() + "/pulls/comments/" + i64toa(c.DatabaseID)
	out := map[string]any{
		"url": api, "id": c.DatabaseID, "node_id": c.ID, "diff_hunk": "@@ -1,3 +1,4 @@", "path": t.Path,
		"commit_id": c.CommitOID, "original_commit_id": c.CommitOID, "user": f.restUserLocked(c.Author),
		"body": c.Body, "created_at": restTime(c.CreatedAt), "updated_at": restTime(c.UpdatedAt),
		"html_url": c.URL(), "pull_request_url": apiBase + "/repos/" + pr.Repo.NameWithOwner() + "/pulls/" + itoa(pr.Number),
		"author_association": f.association(c.Author), "side": "RIGHT", "subject_type": strings.ToLower(subjectType(t)),
		"line": intOrNil(t.Line), "original_line": intOrNil(t.OriginalLine),
	}
	if t.IsOutdated {
		out["line"] = nil
	}
	if r, ok := f.nodes[c.ReviewID].(*Review); ok {
		out["pull_request_review_id"] = r.DatabaseID
	}
	if c.ReplyTo != 0 {
		out["in_reply_to_id"] = c.ReplyTo
	}
	return out
}

func (f *Fake) restReviewLocked(r *Review) map[string]any {
	return map[string]any{
		"id": r.DatabaseID, "node_id": r.ID, "user": f.restUserLocked(r.Author), "body": r.Body,
		"state": string(r.State), "html_url": r.URL(), "submitted_at": restTime(r.SubmittedAt),
		"commit_id": r.CommitOID, "author_association": f.association(r.Author),
	}
}

func lower(s string) any {
	if s == "" {
		return nil
	}
	return strings.ToLower(s)
}

func (f *Fake) restJobLocked(cr *CheckRun) map[string]any {
	run := cr.Run
	api := apiBase + "/repos/" + run.repo.NameWithOwner() + "/actions"
	return map[string]any{
		"id": cr.DatabaseID, "run_id": run.DatabaseID, "run_url": api + "/runs/" + i64toa(run.DatabaseID),
		"node_id": cr.ID, "head_sha": cr.HeadSHA, "head_branch": run.HeadBranch,
		"url": api + "/jobs/" + i64toa(cr.DatabaseID), "html_url": cr.DetailsURL,
		"status": lower(cr.Status), "conclusion": lower(cr.Conclusion),
		"created_at": restTime(run.CreatedAt), "started_at": restTime(cr.StartedAt), "completed_at": restTime(cr.CompletedAt),
		"name": cr.Name, "steps": []any{}, "check_run_url": apiBase + "/repos/" + run.repo.NameWithOwner() + "/check-runs/" + i64toa(cr.DatabaseID),
		"labels": []any{"ubuntu-latest"}, "run_attempt": cr.Attempt, "workflow_name": run.WorkflowName,
	}
}

func (f *Fake) restRunLocked(run *WorkflowRun) map[string]any {
	api := apiBase + "/repos/" + run.repo.NameWithOwner() + "/actions/runs/" + i64toa(run.DatabaseID)
	status, conclusion := "completed", "success"
	for _, cr := range currentJobs(run) {
		switch {
		case cr.Status != StatusCompleted:
			status, conclusion = "in_progress", ""
		case cr.Failed() && conclusion != "":
			conclusion = strings.ToLower(cr.Conclusion)
		}
	}
	return map[string]any{
		"id": run.DatabaseID, "node_id": run.ID, "name": run.WorkflowName, "head_branch": run.HeadBranch,
		"head_sha": run.HeadSHA, "run_number": run.RunNumber, "run_attempt": run.Attempt, "event": run.Event,
		"status": status, "conclusion": lower(conclusion), "workflow_id": run.WorkflowID, "html_url": run.URL(),
		"url": api, "jobs_url": api + "/jobs", "logs_url": api + "/logs", "rerun_url": api + "/rerun",
		"created_at": restTime(run.CreatedAt), "updated_at": restTime(run.CreatedAt),
	}
}

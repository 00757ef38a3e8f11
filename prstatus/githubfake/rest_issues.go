package githubfake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// REST endpoints on the conversation of an issue or a pull request (GitHub's issues API serves
// both): labels and assignees.
//
//	GET    /repos/{o}/{r}/issues/{n}/labels
//	POST   /repos/{o}/{r}/issues/{n}/labels          ["a","b"] or {"labels": [...]}: 200, every label
//	DELETE /repos/{o}/{r}/issues/{n}/labels/{name}   200, the labels left; 404 when not applied
//	POST   /repos/{o}/{r}/issues/{n}/assignees       {"assignees": [...]}: 201, the issue

func (f *Fake) restIssueRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/labels", f.restListLabels)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/labels", f.restAddLabels)
	m.HandleFunc("DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name...}", f.restRemoveLabel)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/assignees", f.restAddAssignees)
}

// withConversation runs fn on the issue or pull request a REST path names (item is its
// *PullRequest or *Issue), with the fake locked, or answers 404.
func (f *Fake) withConversation(w http.ResponseWriter, r *http.Request, fn func(repo *Repository, c *Conversation, item any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var item any
	if n, err := strconv.Atoi(r.PathValue("number")); err == nil {
		item = f.issueOrPullLocked(r.PathValue("owner"), r.PathValue("repo"), n)
	}
	c, _ := conversationOf(item)
	if c == nil {
		writeNotFound(w)
		return
	}
	fn(f.repoLocked(r.PathValue("owner"), r.PathValue("repo")), c, item)
}

func (f *Fake) restListLabels(w http.ResponseWriter, r *http.Request) {
	f.withConversation(w, r, func(repo *Repository, c *Conversation, _ any) {
		writeJSON(w, http.StatusOK, restLabels(repo, c))
	})
}

// restAddLabels accepts the body both ways GitHub does: a JSON array of names, or an object
// {"labels": [names or {"name": ...}]}.
func (f *Fake) restAddLabels(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decodeBody(w, r, &raw) {
		return
	}
	names, ok := labelNames(raw)
	if !ok || len(names) == 0 {
		validationFailed(w, "Label", "labels", "missing_field")
		return
	}
	f.withConversation(w, r, func(repo *Repository, c *Conversation, _ any) {
		f.addLabelsLocked(repo, c, f.viewer, names)
		writeJSON(w, http.StatusOK, restLabels(repo, c))
	})
}

func labelNames(raw json.RawMessage) ([]string, bool) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return trimmed(list), true
	}
	var obj struct {
		Labels []json.RawMessage `json:"labels"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	for _, l := range obj.Labels {
		var name string
		var named struct {
			Name string `json:"name"`
		}
		switch {
		case json.Unmarshal(l, &name) == nil:
			list = append(list, name)
		case json.Unmarshal(l, &named) == nil:
			list = append(list, named.Name)
		default:
			return nil, false
		}
	}
	return trimmed(list), true
}

func trimmed(list []string) []string {
	out := list[:0]
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (f *Fake) restRemoveLabel(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	f.withConversation(w, r, func(repo *Repository, c *Conversation, _ any) {
		if !f.removeLabelLocked(c, f.viewer, name) {
			writeMessage(w, http.StatusNotFound, "Label does not exist")
			return
		}
		writeJSON(w, http.StatusOK, restLabels(repo, c))
	})
}

func (f *Fake) restAddAssignees(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Assignees []string `json:"assignees"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	f.withConversation(w, r, func(repo *Repository, c *Conversation, item any) {
		var who []Actor
		for _, login := range trimmed(in.Assignees) {
			who = append(who, f.findActor(login))
		}
		f.assignLocked(c, who)
		writeJSON(w, http.StatusCreated, f.restIssueLocked(repo, item))
	})
}

func restLabels(repo *Repository, c *Conversation) []any {
	out := make([]any, 0, len(c.Labels))
	for _, l := range c.Labels {
		out = append(out, restLabel(repo, l))
	}
	return out
}

func restLabel(repo *Repository, l *Label) map[string]any {
	return map[string]any{
		"id": labelDatabaseID(l), "node_id": l.ID, "name": l.Name, "color": l.Color, "default": false,
		"description": stringOrNil(l.Description),
		"url":         apiBase + "/repos/" + repo.NameWithOwner() + "/labels/" + l.Name,
	}
}

// labelDatabaseID derives a stable number from the label's node id.
func labelDatabaseID(l *Label) int64 {
	var h int64 = 5_000_000_000
	for _, c := range l.ID {
		h = h*31 + int64(c)
	}
	if h < 0 {
		h = -h
	}
	return h
}

// restIssueLocked is the issue object the issues API answers with, for an issue or a pull request.
func (f *Fake) restIssueLocked(repo *Repository, item any) map[string]any {
	c, url := conversationOf(item)
	assignees := []any{}
	for _, a := range c.Assignees {
		assignees = append(assignees, f.restUserLocked(a))
	}
	var first any
	if len(assignees) > 0 {
		first = assignees[0]
	}
	out := map[string]any{
		"html_url": url, "labels": restLabels(repo, c), "assignees": assignees, "assignee": first, "comments": len(c.Comments),
	}
	switch v := item.(type) {
	case *PullRequest:
		state := "closed"
		if v.State == "OPEN" {
			state = "open"
		}
		out["id"], out["number"], out["node_id"], out["title"], out["state"] = v.DatabaseID, v.Number, v.ID, v.Title, state
		out["user"] = f.restUserLocked(v.Author)
		out["pull_request"] = map[string]any{"url": apiBase + "/repos/" + repo.NameWithOwner() + "/pulls/" + itoa(v.Number), "html_url": url}
	case *Issue:
		out["id"], out["number"], out["node_id"], out["title"], out["state"] = v.DatabaseID, v.Number, v.ID, v.Title, strings.ToLower(v.State)
		out["user"] = f.restUserLocked(v.Author)
	}
	return out
}

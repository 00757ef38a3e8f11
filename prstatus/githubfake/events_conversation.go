package githubfake

import (
	"errors"
	"fmt"
	"strings"
)

// Events on the conversation of an issue or a pull request: the number in the Tx's reference may
// name either, as on GitHub.

// errNoConversation is returned by conversation events on a number that is neither an issue nor a
// pull request.
var errNoConversation = errors.New("githubfake: no such issue or pull request (open it first)")

func (tx *Tx) conversation() (*Conversation, *Repository, string, error) {
	c, url := tx.f.conversationLocked(tx.ref.Owner, tx.ref.Repo, tx.ref.Number)
	if c == nil {
		return nil, nil, "", fmt.Errorf("%w: %s/%s#%d", errNoConversation, tx.ref.Owner, tx.ref.Repo, tx.ref.Number)
	}
	return c, tx.f.repoLocked(tx.ref.Owner, tx.ref.Repo), url, nil
}

// OpenIssue opens an issue with the Tx's number (creating the repository if needed). The number
// must not be a pull request's.
type OpenIssue struct {
	Author    Actor // defaults to the viewer
	Title     string
	Body      string
	Labels    []string
	Assignees []Actor
}

// Describe implements Event.
func (e OpenIssue) Describe() string {
	return fmt.Sprintf("%s opens issue %q%s", who(e.Author, "the viewer"), e.Title, labelNote(e.Labels))
}

func labelNote(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return " labelled " + strings.Join(labels, ", ")
}

// Apply implements Event.
func (e OpenIssue) Apply(tx *Tx) error {
	f := tx.f
	repo := f.ensureRepoLocked(tx.ref.Owner, tx.ref.Repo)
	if repo.PullRequests[tx.ref.Number] != nil || repo.issueLocked(tx.ref.Number) != nil {
		return fmt.Errorf("githubfake: %s/%s#%d is already taken", tx.ref.Owner, tx.ref.Repo, tx.ref.Number)
	}
	author := e.Author
	if author.zero() {
		author = f.viewer
	}
	f.accountLocked(author)
	now := f.clock.now()
	is := &Issue{Repo: repo, Number: tx.ref.Number, ID: f.ids.node(prefixIssue), DatabaseID: f.ids.db("issue"),
		Title: e.Title, Body: e.Body, Author: author, State: "OPEN", CreatedAt: now, UpdatedAt: now}
	if repo.Issues == nil {
		repo.Issues = map[int]*Issue{}
	}
	repo.Issues[is.Number] = is
	f.nodes[is.ID] = is
	f.addLabelsLocked(repo, &is.Conversation, author, e.Labels)
	f.assignLocked(&is.Conversation, e.Assignees)
	return nil
}

// AddLabels applies labels (created in the repository when new), each with a LabeledEvent in the
// timeline at the fake's current time. A label already applied is left as it is.
type AddLabels struct {
	Labels []string
	By     Actor // defaults to the viewer
}

// Describe implements Event.
func (e AddLabels) Describe() string {
	return fmt.Sprintf("%s adds the label%s %s", who(e.By, "the viewer"), plural(len(e.Labels), "", "s"), strings.Join(e.Labels, ", "))
}

// Apply implements Event.
func (e AddLabels) Apply(tx *Tx) error {
	c, repo, _, err := tx.conversation()
	if err != nil {
		return err
	}
	by := e.By
	if by.zero() {
		by = tx.f.viewer
	}
	tx.f.addLabelsLocked(repo, c, by, e.Labels)
	return nil
}

// RemoveLabel removes a label, with an UnlabeledEvent in the timeline.
type RemoveLabel struct {
	Label string
	By    Actor // defaults to the viewer
}

// Describe implements Event.
func (e RemoveLabel) Describe() string {
	return fmt.Sprintf("%s removes the label %s", who(e.By, "the viewer"), e.Label)
}

// Apply implements Event.
func (e RemoveLabel) Apply(tx *Tx) error {
	c, _, _, err := tx.conversation()
	if err != nil {
		return err
	}
	by := e.By
	if by.zero() {
		by = tx.f.viewer
	}
	if !tx.f.removeLabelLocked(c, by, e.Label) {
		return fmt.Errorf("githubfake: the label %q is not applied", e.Label)
	}
	return nil
}

// Assign adds assignees.
type Assign struct {
	Assignees []Actor
}

// Describe implements Event.
func (e Assign) Describe() string {
	names := make([]string, len(e.Assignees))
	for i, a := range e.Assignees {
		names[i] = a.Login
	}
	return "assigned to " + strings.Join(names, ", ")
}

// Apply implements Event.
func (e Assign) Apply(tx *Tx) error {
	c, _, _, err := tx.conversation()
	if err != nil {
		return err
	}
	tx.f.assignLocked(c, e.Assignees)
	return nil
}

// Comment posts a conversation comment (an issue comment, also on a pull request).
type Comment struct {
	Author Actor // defaults to the viewer
	Body   string
}

// Describe implements Event.
func (e Comment) Describe() string {
	first, _, _ := strings.Cut(e.Body, "\n")
	return fmt.Sprintf("%s comments %q", who(e.Author, "the viewer"), first)
}

// Apply implements Event.
func (e Comment) Apply(tx *Tx) error {
	c, _, url, err := tx.conversation()
	if err != nil {
		return err
	}
	author := e.Author
	if author.zero() {
		author = tx.f.viewer
	}
	tx.f.commentLocked(c, url, author, e.Body)
	return nil
}

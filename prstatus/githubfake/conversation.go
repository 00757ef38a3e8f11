package githubfake

import (
	"strings"
	"time"
)

// What issues and pull requests share on GitHub, which calls both "issues" in REST: labels,
// assignees, conversation comments and the timeline of label events. Issues and pull requests
// share one number space per repository.

// Conversation is the issue side of an issue or a pull request.
type Conversation struct {
	// Labels are the labels applied now, in the order they were applied.
	Labels []*Label
	// Assignees are the assigned accounts.
	Assignees []Actor
	// Comments are the conversation comments (not review comments), oldest first.
	Comments []*IssueComment
	// Timeline holds the label events, oldest first.
	Timeline []*LabelEvent
}

// Label is one of a repository's labels.
type Label struct {
	ID          string
	Name        string
	Color       string
	Description string
	CreatedAt   time.Time
}

// IssueComment is one conversation comment on an issue or a pull request.
type IssueComment struct {
	ID         string
	DatabaseID int64
	Author     Actor
	Body       string
	CreatedAt  time.Time
	UpdatedAt  time.Time

	url string
}

// LabelEvent is a timeline item: a label applied (LabeledEvent) or removed (UnlabeledEvent).
type LabelEvent struct {
	ID        string
	Removed   bool // UnlabeledEvent
	Label     *Label
	Actor     Actor
	CreatedAt time.Time
}

// Issue is one issue.
type Issue struct {
	Repo       *Repository
	Number     int
	ID         string
	DatabaseID int64
	Title      string
	Body       string
	Author     Actor
	// State is OPEN or CLOSED.
	State     string
	CreatedAt time.Time
	UpdatedAt time.Time

	Conversation
}

// URL is the issue's web address.
func (is *Issue) URL() string {
	return "https://github.com/" + is.Repo.NameWithOwner() + "/issues/" + itoa(is.Number)
}

// Node id prefixes of the conversation's objects.
const (
	prefixIssue        = "I"
	prefixLabel        = "LA"
	prefixIssueComment = "IC"
	prefixLabeledEvent = "LE"
	prefixUnlabeled    = "UNLE"
)

// issueLocked returns the repository's issue number n, or nil.
func (r *Repository) issueLocked(n int) *Issue {
	if r == nil || r.Issues == nil {
		return nil
	}
	return r.Issues[n]
}

// conversationLocked finds the issue or pull request number n of the repository: its
// conversation and its web address.
func (f *Fake) conversationLocked(owner, repo string, n int) (*Conversation, string) {
	return conversationOf(f.issueOrPullLocked(owner, repo, n))
}

// issueOrPullLocked returns the *PullRequest or *Issue number n of the repository, or nil.
func (f *Fake) issueOrPullLocked(owner, repo string, n int) any {
	r := f.repoLocked(owner, repo)
	if r == nil {
		return nil
	}
	if pr := r.PullRequests[n]; pr != nil {
		return pr
	}
	if is := r.issueLocked(n); is != nil {
		return is
	}
	return nil
}

// conversationOf is the conversation of a *PullRequest or *Issue, and its web address.
func conversationOf(v any) (*Conversation, string) {
	switch v := v.(type) {
	case *PullRequest:
		return &v.Conversation, v.URL()
	case *Issue:
		return &v.Conversation, v.URL()
	}
	return nil, ""
}

// repoLabelLocked returns the repository's label name, creating it (as GitHub does when a label
// that does not exist is added to an issue).
func (f *Fake) repoLabelLocked(r *Repository, name string) *Label {
	if r.Labels == nil {
		r.Labels = map[string]*Label{}
	}
	key := strings.ToLower(name)
	if l, ok := r.Labels[key]; ok {
		return l
	}
	l := &Label{ID: f.ids.node(prefixLabel), Name: name, Color: "ededed", CreatedAt: f.clock.now()}
	r.Labels[key] = l
	f.nodes[l.ID] = l
	return l
}

// addLabelsLocked applies labels to a conversation, recording a LabeledEvent for each label it
// did not carry yet.
func (f *Fake) addLabelsLocked(r *Repository, c *Conversation, by Actor, names []string) {
	for _, name := range names {
		l := f.repoLabelLocked(r, name)
		if c.label(name) != nil {
			continue
		}
		c.Labels = append(c.Labels, l)
		ev := &LabelEvent{ID: f.ids.node(prefixLabeledEvent), Label: l, Actor: by, CreatedAt: f.clock.now()}
		c.Timeline = append(c.Timeline, ev)
		f.nodes[ev.ID] = ev
	}
}

// removeLabelLocked removes a label, recording an UnlabeledEvent; false when it was not applied.
func (f *Fake) removeLabelLocked(c *Conversation, by Actor, name string) bool {
	for i, l := range c.Labels {
		if strings.EqualFold(l.Name, name) {
			c.Labels = append(c.Labels[:i:i], c.Labels[i+1:]...)
			ev := &LabelEvent{ID: f.ids.node(prefixUnlabeled), Removed: true, Label: l, Actor: by, CreatedAt: f.clock.now()}
			c.Timeline = append(c.Timeline, ev)
			f.nodes[ev.ID] = ev
			return true
		}
	}
	return false
}

// assignLocked adds assignees that are not assigned yet.
func (f *Fake) assignLocked(c *Conversation, who []Actor) {
	for _, a := range who {
		f.accountLocked(a)
		dup := false
		for _, have := range c.Assignees {
			dup = dup || sameActor(have, a)
		}
		if !dup {
			c.Assignees = append(c.Assignees, a)
		}
	}
}

func (f *Fake) commentLocked(c *Conversation, url string, author Actor, body string) *IssueComment {
	f.accountLocked(author)
	now := f.clock.now()
	ic := &IssueComment{ID: f.ids.node(prefixIssueComment), DatabaseID: f.ids.db("comment"), Author: author, Body: body, CreatedAt: now, UpdatedAt: now}
	ic.url = url + "#issuecomment-" + i64toa(ic.DatabaseID)
	c.Comments = append(c.Comments, ic)
	f.nodes[ic.ID] = ic
	return ic
}

func (c *Conversation) label(name string) *Label {
	for _, l := range c.Labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

// LabelNames are the names of the labels applied now.
func (c *Conversation) LabelNames() []string {
	out := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		out[i] = l.Name
	}
	return out
}

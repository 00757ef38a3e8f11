package prstatus

import (
	"slices"
	"strings"
)

// markerPrefix is a cheap pre-check before the marker regexp: most comments carry no marker.
const markerPrefix = "<!-- prmonitor:v1 "

// ours reports whether a comment speaks for the PR's side: written by the PR author or by the
// token's user. prmonitor posts with the user's token, so its replies are covered; its marker alone
// proves nothing, because anyone can paste it into a comment.
func ours(c Comment, author, viewer string) bool { return IsUs(c.Author.Login, author, viewer) }

// answeredByUs reports whether a thread's newest comment is a reply prmonitor posted: it carries
// prmonitor's marker and the PR's side wrote it.
func answeredByUs(last Comment, author, viewer string) bool {
	_, ok := OurMarker(last, author, viewer)
	return ok
}

// OurMarker returns prmonitor's marker from a comment written by the PR's side (the PR author or
// the token's user). A marker in anybody else's comment is ignored: it could be forged.
func OurMarker(c Comment, author, viewer string) (Marker, bool) {
	if !ours(c, author, viewer) || !strings.Contains(c.Body, markerPrefix) {
		return Marker{}, false
	}
	return ParseMarker(c.Body)
}

// threadStatus says where an unresolved or resolved thread stands. Outdated threads are judged like
// any other: code moving under a comment does not address it. Only comments by the PR's side and
// by people who can review count (policy): a drive-by comment neither opens work nor answers us. A
// thread nobody who can review wrote in is from others: shown, never acted on.
func threadStatus(t Thread, author, viewer string, policy ReviewerPolicy) ThreadStatus {
	if t.IsResolved {
		return ThreadResolved
	}
	counted := make([]bool, len(t.Comments))
	last := -1
	for i, c := range t.Comments {
		if ours(c, author, viewer) || policy.CanReview(c.Author, c.AuthorAssociation) {
			counted[i], last = true, i
		}
	}
	switch {
	case last < 0:
		return ThreadFromOthers
	case ours(t.Comments[last], author, viewer):
		return ThreadWaiting
	}
	for i, c := range t.Comments[:last] {
		if counted[i] && ours(c, author, viewer) {
			return ThreadReviewerReplied
		}
	}
	return ThreadNeedsAction
}

// threadReviewer is whose concern a thread carries: the first comment's author, or, when that
// author cannot review, the first reviewer who wrote in it after them.
func threadReviewer(t Thread, author, viewer string, policy ReviewerPolicy) Comment {
	first := t.First()
	if policy.CanReview(first.Author, first.AuthorAssociation) {
		return first
	}
	for _, c := range t.Comments {
		if !ours(c, author, viewer) && policy.CanReview(c.Author, c.AuthorAssociation) {
			return c
		}
	}
	return first
}

// deriveThreads sorts every thread that has comments into exactly one status list, each list
// oldest first. Threads without comments carry nothing to act on and are left out.
func deriveThreads(s *Snapshot, policy ReviewerPolicy) ThreadFacts {
	tf := ThreadFacts{
		NeedsAction:     []ThreadFact{},
		ReviewerReplied: []ThreadFact{},
		Waiting:         []ThreadFact{},
	}
	// One backing array for every thread's copy of its comments: the facts never alias the
	// snapshot, at the cost of one allocation rather than one per thread.
	total := 0
	for _, t := range s.Threads {
		total += len(t.Comments)
	}
	backing := make([]Comment, 0, total)
	for _, t := range s.Threads {
		if len(t.Comments) == 0 {
			continue
		}
		start := len(backing)
		backing = append(backing, t.Comments...)
		first := threadReviewer(t, s.Author.Login, s.Viewer, policy)
		f := ThreadFact{
			ID:            t.ID,
			Status:        threadStatus(t, s.Author.Login, s.Viewer, policy),
			Path:          t.Path,
			Line:          t.Line,
			IsOutdated:    t.IsOutdated,
			Reviewer:      reviewerLogin(first.Author),
			ReviewerIsBot: first.Author.IsBot,
			Comments:      backing[start:len(backing):len(backing)],
			TotalComments: max(t.TotalComments, len(t.Comments)),
			ReplyToID:     t.First().DatabaseID,
			AnsweredByUs:  answeredByUs(t.Last(), s.Author.Login, s.Viewer),
		}
		switch f.Status {
		case ThreadResolved:
			tf.Resolved = append(tf.Resolved, f)
		case ThreadWaiting:
			tf.Waiting = append(tf.Waiting, f)
		case ThreadReviewerReplied:
			tf.ReviewerReplied = append(tf.ReviewerReplied, f)
		case ThreadFromOthers:
			tf.FromOthers = append(tf.FromOthers, f)
		default:
			tf.NeedsAction = append(tf.NeedsAction, f)
		}
	}
	for _, list := range [][]ThreadFact{tf.NeedsAction, tf.ReviewerReplied, tf.Waiting, tf.Resolved, tf.FromOthers} {
		slices.SortFunc(list, CompareThreads)
	}
	return tf
}

// CompareThreads orders threads oldest first, then by id, then by their newest comment, so the
// lists do not depend on the order GitHub returned the threads in.
func CompareThreads(a, b ThreadFact) int {
	if c := a.First().CreatedAt.Compare(b.First().CreatedAt); c != 0 {
		return c
	}
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if c := a.Last().CreatedAt.Compare(b.Last().CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.Last().ID, b.Last().ID)
}

// lastCommentID identifies a thread's newest comment: a new reply changes it.
func lastCommentID(t ThreadFact) string {
	if t.Last().ID != "" {
		return t.Last().ID
	}
	if t.Last().DatabaseID != 0 {
		return itoa(t.Last().DatabaseID)
	}
	return t.Last().CreatedAt.UTC().Format(timeFormat)
}

// Where renders a thread's location for a sentence: "api.go:12", "api.go", or its id.
func (t ThreadFact) Where() string {
	switch {
	case t.Path != "" && t.Line > 0:
		return t.Path + ":" + itoa(int64(t.Line))
	case t.Path != "":
		return t.Path
	}
	return "thread " + t.ID
}

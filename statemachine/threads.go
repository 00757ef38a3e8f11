package statemachine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// threadContext turns a thread fact into the context handed to tasks and questions.
func threadContext(t prstatus.ThreadFact) ThreadContext {
	tc := ThreadContext{
		ID: t.ID, Reviewer: t.Reviewer, ReviewerIsBot: t.ReviewerIsBot, Path: t.Path, Line: t.Line,
		Outdated: t.IsOutdated, URL: t.First().URL, Comment: Untrusted(t.First().Body),
		ReviewerReplied: t.Status == prstatus.ThreadReviewerReplied, ReplyToID: t.ReplyToID, LastCommentID: t.Last().ID,
	}
	for _, c := range t.Comments {
		if c.ID == t.First().ID {
			continue
		}
		tc.Replies = append(tc.Replies, CommentContext{Author: c.Author.Login, At: c.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"),
			Body: Untrusted(c.Body), Association: c.AuthorAssociation})
	}
	return tc
}

func threadIDs(ts []ThreadContext) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}

// category is the thread's concern category: the cluster analysis's when it placed the thread,
// else the deterministic floor. It goes into the reply's marker, for later rounds to read.
func (cs *CommentsState) category(t ThreadContext) rounds.Category {
	if cs.Cluster != nil {
		for _, n := range cs.Cluster.NewThreads {
			if n.ID == t.ID {
				return n.Category
			}
		}
	}
	return rounds.Categorize(string(t.Comment), t.Path)
}

// threadKey identifies a thread in its current state: acknowledging it lasts until someone writes
// in it again.
func threadKey(id, lastCommentID string) string { return "thread:" + id + "@" + lastCommentID }

// roundID is a short stable id for a batch of feedback, carried in every reply's marker.
func roundID(key string) string {
	h := sha256.Sum256([]byte(key))
	return "r" + hex.EncodeToString(h[:5])
}

// Bounds of the GitHub text a question quotes, in bytes: a question stays a few kilobytes
// whatever GitHub holds.
const (
	maxExcerpt     = 400  // the one comment a question is about
	maxListExcerpt = 160  // each comment in a list
	maxName        = 120  // a path or a check's name
	maxListed      = 10   // entries of a list in a question; the rest are counted
	maxAnalysis    = 1500 // the agent's recommendation or findings, repeated in a question
)

// excerpt is a one-line, bounded quote of GitHub text for a question shown to the user: its start
// as a reader is shown it (sanitize.ForReader: what GitHub hides left out), taken before the
// lines are joined, since a link-reference comment is one only on a line of its own. It reads no
// more of a long comment than it shows and what may be hidden around it.
func excerpt(u Untrusted, max int) string {
	s := string(u)
	if limit := 4*max + 1024; len(s) > limit {
		s = s[:limit]
	}
	return text.ClipBytes(text.OneLine(sanitize.ForReader(strings.ToValidUTF8(s, ""))), max)
}

// quotedThread is one line of a fenced quote: who wrote what where. Everything on it is GitHub's.
func quotedThread(t ThreadContext, body Untrusted, max int) string {
	at := "the PR"
	if t.Path != "" {
		at = text.ClipBytes(t.Path, maxName)
		if t.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, t.Line)
		}
	}
	return fmt.Sprintf("%s on %s: %s", t.Reviewer, at, excerpt(body, max))
}

// describeThread names a thread in the server's own sentences (what it is doing on GitHub): by
// what it is, never by its reviewer or its file, which are GitHub's names (context.thread has
// them).
func describeThread(t ThreadContext) string {
	switch {
	case t.ReviewerIsBot:
		return "the review bot's thread"
	case t.Path == "":
		return "the review thread on the pull request"
	}
	return "the review thread"
}

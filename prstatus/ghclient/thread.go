package ghclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
)

// threadState is a review thread as threadQuery reads it.
type threadState struct {
	resolved bool
	viewer   string
	comments []threadComment // oldest first, the newest 20 only
}

type threadComment struct {
	id     int64
	url    string
	body   string
	author string
}

// readThread reads a thread's state, its newest comments and the token's login in one query.
func (c *Client) readThread(ctx context.Context, threadID string) (threadState, error) {
	var q threadQuery
	if err := c.gql.Query(ctx, &q, map[string]any{"id": githubv4.ID(threadID)}); err != nil {
		return threadState{}, c.callError(err)
	}
	if q.Node == nil || q.Node.Typename != "PullRequestReviewThread" {
		return threadState{}, fmt.Errorf("%w: no review thread %q", ErrNotFound, threadID)
	}
	st := threadState{resolved: q.Node.Thread.IsResolved, viewer: q.Viewer.Login}
	for _, n := range q.Node.Thread.Comments.Nodes {
		if n == nil {
			continue
		}
		tc := threadComment{id: n.DatabaseID, url: n.URL, body: n.Body}
		if n.Author != nil {
			tc.author = n.Author.Login
		}
		st.comments = append(st.comments, tc)
	}
	return st, nil
}

// ourReply finds the reply of ours that already answers the thread's newest comments: scanning
// newest first, a comment the token's user wrote that carries a marker for this thread, before
// any comment of someone else. The round and kind do not matter: a thread is answered once per
// reviewer comment, so a reply is once-only whatever round id a later flow gives it, and a
// reviewer who writes again makes the next reply due. A marker in anyone else's comment proves
// nothing.
func (st threadState) ourReply(want prstatus.Marker) (threadComment, bool) {
	if st.viewer == "" {
		return threadComment{}, false
	}
	for i := len(st.comments) - 1; i >= 0; i-- {
		tc := st.comments[i]
		if !strings.EqualFold(tc.author, st.viewer) {
			return threadComment{}, false // someone else wrote last: they are owed an answer
		}
		c := prstatus.Comment{Author: prstatus.Actor{Login: tc.author}, Body: tc.body}
		if m, ok := prstatus.OurMarker(c, "", st.viewer); ok && m.Thread == want.Thread {
			return tc, true
		}
	}
	return threadComment{}, false
}

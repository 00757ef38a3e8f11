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

// ourReply finds, newest first, a comment the token's user wrote that carries a marker for the
// same thread, round and kind as want. A marker in anyone else's comment proves nothing.
func (st threadState) ourReply(want prstatus.Marker) (threadComment, bool) {
	for i := len(st.comments) - 1; i >= 0; i-- {
		tc := st.comments[i]
		if st.viewer == "" || !strings.EqualFold(tc.author, st.viewer) {
			continue
		}
		c := prstatus.Comment{Author: prstatus.Actor{Login: tc.author}, Body: tc.body}
		m, ok := prstatus.OurMarker(c, "", st.viewer)
		if ok && m.Thread == want.Thread && m.Round == want.Round && m.Kind == want.Kind {
			return tc, true
		}
	}
	return threadComment{}, false
}

package front

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/board"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// viewCache is the board's Reader over Temporal: a user's running monitors from visibility, each
// read with its status Query, and the token's budget as the freshest read saw it. A view is read
// at most once per period per user, whatever the number of open pages.
type viewCache struct {
	f     *Front
	every time.Duration

	mu    sync.Mutex
	views map[string]cached
}

type cached struct {
	at time.Time
	v  board.View
}

func newViewCache(f *Front, every time.Duration) *viewCache {
	return &viewCache{f: f, every: every, views: map[string]cached{}}
}

func (c *viewCache) View(ctx context.Context, user string) (board.View, error) {
	now := c.f.cfg.Now()
	c.mu.Lock()
	if v, ok := c.views[user]; ok && now.Sub(v.at) < c.every/2 {
		c.mu.Unlock()
		return v.v, nil
	}
	c.mu.Unlock()
	who, ok := monitorwf.ParseOwner(user)
	if !ok {
		return board.View{}, errors.New("no such user")
	}
	sts, omitted, err := c.f.statuses(ctx, who, board.MaxMonitors)
	if err != nil {
		return board.View{}, err
	}
	v := board.View{Monitors: sts, Omitted: omitted}
	for _, st := range sts {
		if rl := st.RateLimit; rl != nil && (v.Budget == nil || rl.ResetAt.After(v.Budget.ResetsAt) ||
			(rl.ResetAt.Equal(v.Budget.ResetsAt) && rl.Remaining < v.Budget.Remaining)) {
			v.Budget = &board.Budget{Limit: rl.Limit, Remaining: rl.Remaining, ResetsAt: rl.ResetAt}
		}
	}
	if v.Monitors == nil {
		v.Monitors = []monitorwf.Status{}
	}
	c.mu.Lock()
	if len(c.views) > 1000 {
		clear(c.views)
	}
	c.views[user] = cached{at: now, v: v}
	c.mu.Unlock()
	return v, nil
}

package front_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
)

// person is a line of a tokens file: a login, a bearer token and a GitHub user id.
type person struct {
	login, token string
	id           int64
}

// frontFor is another front end on tm's Temporal server and task queue, whose tokens file names
// people: the same deployment after its operator changed the file.
func (tm *team) frontFor(people ...person) string {
	tm.t.Helper()
	var b strings.Builder
	for _, p := range people {
		h := sha256.Sum256([]byte(p.token))
		fmt.Fprintf(&b, "%s %s %d\n", p.login, hex.EncodeToString(h[:]), p.id)
	}
	u, err := front.ParseUsers(strings.NewReader(b.String()))
	require.NoError(tm.t, err)
	cfg := tm.cfg
	cfg.Users, cfg.OAuth = u, nil
	fr, err := front.New(cfg)
	require.NoError(tm.t, err)
	hs := httptest.NewServer(fr.Handler())
	tm.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = fr.Close(ctx)
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}

// statusIDs are the monitor ids pr_monitor_status lists to a.
func statusIDs(t *testing.T, a *agent) []string {
	t.Helper()
	r := a.call("pr_monitor_status", map[string]any{})
	require.False(t, r.isError, r.text)
	ids := []string{}
	ms, _ := r.out["monitors"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			id, _ := mm["monitor_id"].(string)
			ids = append(ids, id)
		}
	}
	return ids
}

// A monitor belongs to its owner's GitHub user id, not to the login. After alice renames her
// account (same id, new login) she still sees her monitor, on the board too, and answers its
// question there; the newcomer who then took the login "alice" (another id) sees none of it,
// cannot drive it, and cannot answer its question, by MCP or on the board.
func TestAMonitorBelongsToItsOwnersGitHubIDARenamedLoginKeepsItARecycledLoginGetsNothing(t *testing.T) {
	tm := newTeam(t)
	tm.atTheMergeQuestion()

	st, err := monitorwf.QueryMonitor(context.Background(), tm.c, "acme/widgets#7")
	require.NoError(t, err)
	aliceID := teamtest.UserID("alice")
	assert.Equal(t, fmt.Sprintf("id:%d", aliceID), st.Owner, "owned by the id")
	assert.Equal(t, "alice", st.OwnerLogin, "the login is kept as a name")

	renamed := person{login: "alice-renamed", token: "renamed-token-0123456789", id: aliceID}
	recycled := person{login: "alice", token: "recycled-token-0123456789", id: 424242}
	later := tm.frontFor(renamed, recycled)
	byRenamed := tm.agentAt(later, renamed.token, agentOptions{protocol: "2026-07-28"})
	byRecycled := tm.agentAt(later, recycled.token, agentOptions{protocol: "2026-07-28"})

	assert.Equal(t, []string{"acme/widgets#7"}, statusIDs(t, byRenamed), "the renamed login lists its monitor")
	assert.Empty(t, statusIDs(t, byRecycled), "the recycled login lists none")
	r := byRecycled.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	assert.True(t, r.isError, "the recycled login cannot read it: %v", r.out)
	r = byRecycled.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge"})
	assert.True(t, r.isError, "the recycled login cannot answer its question: %v", r.out)
	r = byRecycled.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#7"})
	assert.True(t, r.isError, "nor stop it: %v", r.out)

	recycledBoard := tm.boardSessionToken(later, recycled.token)
	assert.Empty(t, tm.boardPageAt(later, recycledBoard).Cards, "the recycled login's board lists nothing")
	renamedBoard := tm.boardSessionToken(later, renamed.token)
	page := tm.boardPageAt(later, renamedBoard)
	require.Len(t, page.Cards, 1, "the renamed login's board lists its monitor, by id")
	q := page.Cards[0].Question
	require.NotNil(t, q)
	code, _ := answerOnBoard(t, recycledBoard, later, "acme/widgets#7", q.Seq, "merge", tm.boardPageAt(later, recycledBoard).CSRF)
	assert.Equal(t, http.StatusNotFound, code, "the recycled login cannot answer on the board")
	assert.Empty(t, tm.fake.Merges())

	code, msg := answerOnBoard(t, renamedBoard, later, "acme/widgets#7", q.Seq, "merge", page.CSRF)
	require.Equal(t, http.StatusOK, code, msg)
	assert.Eventually(t, func() bool { return len(tm.fake.Merges()) == 1 }, time.Minute, 100*time.Millisecond, "the renamed owner's own answer merges")
}

// A monitor started before owners had ids is keyed by its owner's login. Its owner still sees it,
// and their first authorized call adopts it for their GitHub user id; from then on a recycled
// login ("alice" under another id) sees none of it.
func TestAMonitorKeyedByALoginIsAdoptedForItsOwnersIDAtTheirFirstCall(t *testing.T) {
	tm := newTeam(t)
	tm.open(ref, "alice")
	ctx := context.Background()
	require.NoError(t, tm.st.Notify(ctx, ref, monitorwf.Change{Kind: "start", Owner: "Alice"}), "as a front end of before ids started it")
	require.Eventually(t, func() bool {
		st, err := monitorwf.QueryMonitor(ctx, tm.c, "acme/widgets#7")
		return err == nil && !st.LastRead.IsZero()
	}, time.Minute, 50*time.Millisecond)
	require.Equal(t, "alice", ownerAttr(t, tm), "keyed by the login")

	recycled := person{login: "alice", token: "recycled-token-0123456789", id: 424242}
	later := tm.frontFor(recycled)
	alice := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	assert.Equal(t, []string{"acme/widgets#7"}, statusIDs(t, alice), "its owner lists it")
	r := alice.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	require.False(t, r.isError, r.text)
	want := fmt.Sprintf("id:%d", teamtest.UserID("alice"))
	require.Eventually(t, func() bool { return ownerAttr(t, tm) == want }, time.Minute, 50*time.Millisecond, "adopted for the id")
	st, err := monitorwf.QueryMonitor(ctx, tm.c, "acme/widgets#7")
	require.NoError(t, err)
	assert.Equal(t, want, st.Owner)

	byRecycled := tm.agentAt(later, recycled.token, agentOptions{protocol: "2026-07-28"})
	assert.Empty(t, statusIDs(t, byRecycled), "the recycled login lists none of it")
	assert.True(t, byRecycled.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"}).isError)
	assert.Equal(t, []string{"acme/widgets#7"}, statusIDs(t, alice), "its owner still does")
}

// ownerAttr is the PrmonitorOwner search attribute of alice's monitor.
func ownerAttr(t *testing.T, tm *team) string {
	t.Helper()
	d, err := tm.c.DescribeWorkflow(context.Background(), "acme/widgets#7", "")
	require.NoError(t, err)
	v, _ := d.TypedSearchAttributes.GetKeyword(temporal.NewSearchAttributeKeyKeyword(monitorwf.SearchAttributeOwner))
	return v
}

package authledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
)

// On the real Temporal server, two ledgers (two replicas' workers on one queue) are one: a code
// used through one is used for the other, a revocation through one is seen by the other; and the
// ledger's state outlives its continue-as-new (over a thousand updates, from several callers at
// once, each taken exactly once).
func TestTheLedgerIsOneForEveryReplicaAndOutlivesItsContinueAsNew(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Temporal server: runs without -short")
	}
	srv := temporaltest.Start(t, "")
	c := srv.Client(t)
	queue := "ledger-test"
	ledger := func() authledger.Temporal {
		l := authledger.Temporal{Client: c, TaskQueue: authledger.TaskQueueFor(queue), ID: authledger.WorkflowIDFor(queue)}
		w := worker.New(c, l.TaskQueue, worker.Options{})
		authledger.Register(w)
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
		require.NoError(t, l.Start(context.Background()))
		return l
	}
	one, other := ledger(), ledger()
	ctx := context.Background()
	until := time.Now().Add(time.Hour)

	out, err := one.Apply(ctx, authledger.Op{Kind: authledger.KindUse, Key: "code:x", Until: until})
	require.NoError(t, err)
	assert.False(t, out.UsedBefore)
	out, err = other.Apply(ctx, authledger.Op{Kind: authledger.KindUse, Key: "code:x", Until: until})
	require.NoError(t, err)
	assert.True(t, out.UsedBefore, "used through one, used for the other")
	_, err = one.Apply(ctx, authledger.Op{Kind: authledger.KindRevoke, Key: "family:f", Until: until})
	require.NoError(t, err)
	revoked, err := other.Revoked(ctx, "family:f")
	require.NoError(t, err)
	assert.True(t, revoked)

	first, err := c.DescribeWorkflow(ctx, one.ID, "")
	require.NoError(t, err)
	const n = 1100
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fresh int
	)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := one
			if g%2 == 1 {
				l = other
			}
			for i := g; i < n; i += 8 {
				out, err := l.Apply(ctx, authledger.Op{Kind: authledger.KindUse, Key: fmt.Sprintf("code:%d", i), Until: until})
				if !assert.NoError(t, err) {
					return
				}
				if !out.UsedBefore {
					mu.Lock()
					fresh++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, n, fresh, "each code taken once")
	last, err := c.DescribeWorkflow(ctx, one.ID, "")
	require.NoError(t, err)
	assert.NotEqual(t, first.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId(), last.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "the ledger continued as new")
	revoked, err = one.Revoked(ctx, "family:f")
	require.NoError(t, err)
	assert.True(t, revoked, "the revocation was carried")
	out, err = other.Apply(ctx, authledger.Op{Kind: authledger.KindUse, Key: "code:x", Until: until})
	require.NoError(t, err)
	assert.True(t, out.UsedBefore, "and the used code")
}

package front

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
)

// startLedger is cfg's ledger: cfg.Ledger, or the ledger's Temporal workflow, which this front end
// runs (a worker on the ledger's own task queue; every replica runs one, any of them serves it)
// and starts unless it runs already.
func startLedger(cfg Config) (oauth.Ledger, worker.Worker, error) {
	if cfg.Ledger != nil {
		return cfg.Ledger, nil, nil
	}
	t := authledger.Temporal{Client: cfg.Client, TaskQueue: authledger.TaskQueueFor(cfg.TaskQueue), ID: authledger.WorkflowIDFor(cfg.TaskQueue)}
	w := worker.New(cfg.Client, t.TaskQueue, worker.Options{})
	authledger.Register(w)
	if err := w.Start(); err != nil {
		return nil, nil, fmt.Errorf("front: run the sign-in ledger: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := t.Start(ctx); err != nil {
		w.Stop()
		return nil, nil, fmt.Errorf("front: %w", err)
	}
	return t, w, nil
}

// stopLedger stops the ledger's worker this process runs, if any.
func (f *Front) stopLedger() {
	if f.ledgerWorker != nil {
		f.ledgerWorker.Stop()
	}
}

// boardKey is the ledger's key of a board session.
func boardKey(id string) string { return "board:" + id }

// revokeBoard records board session id signed out until it would have ended anyway.
func (f *Front) revokeBoard(ctx context.Context, id string, until time.Time) error {
	_, err := f.ledger.Apply(ctx, authledger.Op{Kind: authledger.KindRevoke, Key: boardKey(id), Until: until})
	return err
}

// boardRevoked says whether board session id was signed out (on any replica). A ledger that does
// not answer counts as revoked: the session waits for it rather than outliving a sign-out.
func (f *Front) boardRevoked(ctx context.Context, id string) bool {
	revoked, err := f.ledger.Revoked(ctx, boardKey(id))
	if err != nil {
		f.cfg.Logger.Warn("board: the sign-in ledger did not answer; the session is refused for now", "err", err)
		return true
	}
	return revoked
}

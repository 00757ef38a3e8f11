package authledger

import (
	"context"
	"sync"
	"time"
)

// Memory is the ledger in one process's memory: one front end alone (its tests). Its state ends
// with the process; a deployment uses Temporal's.
type Memory struct {
	now func() time.Time

	mu    sync.Mutex
	state State
}

// NewMemory is an empty ledger on clock now.
func NewMemory(now func() time.Time) *Memory { return &Memory{now: now} }

// Apply does op.
func (m *Memory) Apply(_ context.Context, op Op) (Outcome, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state.Apply(m.now(), op)
}

// Revoked says whether key is revoked.
func (m *Memory) Revoked(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state.Revoked(m.now(), key), nil
}

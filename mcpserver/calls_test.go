package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTheCallsThatMayWaitLeaveAReserve: of a server's workers, all but a reserve may block in a
// waiting call (an eighth of them, at least 2, at most 16), and at least one always may.
func TestTheCallsThatMayWaitLeaveAReserve(t *testing.T) {
	for workers, want := range map[int]int{1: 1, 2: 1, 3: 1, 8: 6, 16: 14, 24: 21, 128: 112, 200: 184} {
		assert.Equal(t, want, waiters(workers), "%d workers", workers)
	}
}

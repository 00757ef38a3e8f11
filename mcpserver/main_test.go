package mcpserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package on any goroutine left behind: blocked calls, pollers, sessions.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

package mcpserver

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package on any goroutine left behind: blocked calls, pollers, sessions. The
// package's parallel tests mostly wait (for a call's deadline, for the watcher), so more of them
// run at once than the machine has cores, unless -parallel says how many.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "12")
	}
	goleak.VerifyTestMain(m)
}

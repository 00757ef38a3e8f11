// Command prmonitor keeps a coding agent on a pull request until it is merged: an MCP server over
// stdio (serve), its registration in agent hosts (setup), a one-shot PR diagnosis (check), the
// repository dispatcher (dispatch), a simulated walkthrough (demo), the state-machine diagram
// (fsm) and its version (version).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], osEnv())
	stop()
	os.Exit(code)
}

//go:build !team

package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prmonitor/prmonitor/statemachine"
)

// The team deployment (prmonitor worker, prmonitor serve --http) links Temporal's SDK, gRPC and
// their protobufs: 20 MB more binary and several milliseconds more at every start. The stdio
// server every agent host starts is built without them; a team builds the binary with
// `-tags team` (docs/deploy.md). This build still parses and checks the team commands' flags, so
// a mistake reads the same in both builds, and then says how to get the team build.

// teamBuildHint says what a team command needs in a build without it.
const teamBuildHint = "this prmonitor is built without the team deployment, which keeps the stdio server small and quick to start; " +
	"build the team's binary with: go install -tags team ./cmd/prmonitor (docs/deploy.md)"

// runTeamWorker in a build without the team deployment says how to get one.
func runTeamWorker(_ context.Context, _ workerParams, e env, _ *slog.Logger) int {
	fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", teamBuildHint)
	return exitUsage
}

// runServeHTTP in a build without the team deployment says how to get one.
func runServeHTTP(_ context.Context, _ *teamServe, _ statemachine.Config, _ []string, e env, _ *slog.Logger) int {
	fmt.Fprintf(e.Stderr, "prmonitor serve: --http: %s\n", teamBuildHint)
	return exitUsage
}

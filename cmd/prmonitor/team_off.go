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
// `-tags team` (docs/deploy.md). serve --http and the worker say so first, before they check
// their flags (a flag fixed would only lead to this message).

// teamBuild tells whether this binary carries the team deployment (built with -tags team).
const teamBuild = false

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

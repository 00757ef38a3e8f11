// Package runner carries out one dispatcher run: it reads the repository (package ghclient), lets
// the pure rules decide (package dispatch), reads what the rules ask for besides, renders the
// workers' tasks, and makes the run's label and assignee writes through google/go-github as
// ghclient builds it, on its own transport, so that retries, rate-limit handling, the token and its
// redaction stay prmonitor's own. With DryRun it writes nothing at all.
//
// Every read happens before the first write, and the first write GitHub refuses ends the run:
// nothing after it is attempted (safety invariant S5). The writes are labels and assignees only;
// nothing here can merge or close a pull request, delete a branch, or call a model.
package runner

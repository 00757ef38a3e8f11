package mcpserver

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Failures remembered per repository (docs/watcher.md#flaky-checks). When the server fetches the
// log tails of failing jobs, each failure's signature is recorded and the logs are marked with
// what the repository's memory knows of it: flaky (it failed, then passed on a re-run of the same
// commit), and whether the pull request touches the test's file. Every poll that shows a check
// passing on a commit it failed on adds the pass. The state machine decides from the marks.

// failurePersister is the part of a Persister that keeps the failure memory (StoreState); without
// it the memory lasts as long as the process.
type failurePersister interface {
	LoadFailures() (rounds.FlakyMemory, error)
	SaveFailures(rounds.FlakyMemory) error
}

// changedFiles is the part of a GitHub client that lists a pull request's changed files
// (ghclient.Client); without it no test is cleared as untouched.
type changedFiles interface {
	ChangedFiles(ctx context.Context, ref prstatus.PRRef) ([]string, bool, error)
}

// failureMemory is the server's failure memory, loaded on first use and saved when it changes.
type failureMemory struct {
	mu     sync.Mutex
	loaded bool
	m      rounds.FlakyMemory
	keep   failurePersister
	log    *slog.Logger
}

func newFailureMemory(p monitor.Persister, log *slog.Logger) *failureMemory {
	fm := &failureMemory{log: log}
	fm.keep, _ = p.(failurePersister)
	return fm
}

func (s *Server) failures() *failureMemory { return s.fails }

// load reads the saved memory once; an unreadable one is started afresh (it is only evidence).
func (fm *failureMemory) load() {
	if fm.loaded {
		return
	}
	fm.loaded = true
	if fm.keep == nil {
		return
	}
	m, err := fm.keep.LoadFailures()
	if err != nil {
		fm.log.Warn("the failure memory could not be read; starting without it", "error", err.Error())
		return
	}
	fm.m = m
}

func (fm *failureMemory) save() {
	if fm.keep == nil {
		return
	}
	if err := fm.keep.SaveFailures(fm.m); err != nil {
		fm.log.Warn("the failure memory could not be saved", "error", err.Error())
	}
}

// sawPoll records the checks that pass on the head: a pass on a commit a signature failed on
// makes it flaky.
func (fm *failureMemory) sawPoll(ref prstatus.PRRef, f *prstatus.Facts, now time.Time) {
	if f == nil || f.CI.Passed == 0 {
		return
	}
	failed := map[string]bool{}
	for _, c := range slices.Concat(f.CI.FailedChecks, f.CI.CancelledChecks, f.CI.PendingChecks) {
		failed[c.Name] = true
	}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	fm.load()
	repo := ref.Owner + "/" + ref.Repo
	if fm.m.Repos[repo] == nil {
		return
	}
	var passed []string
	for _, name := range f.CI.PassedChecks {
		if !failed[name] { // another check of the same name still fails
			passed = append(passed, name)
		}
	}
	if fm.m.Passed(repo, ref.Number, f.HeadSHA, passed, now) {
		fm.save()
	}
}

// sawLogs marks the fetched logs of a fetch_ci_logs outcome: each failure's signature is recorded
// on the pull request's head, and a log whose signature is known flaky carries the evidence and
// whether the pull request touches the test's file (the changed files are read once, only then,
// outside the memory's lock).
func (fm *failureMemory) sawLogs(ctx context.Context, gh GitHub, mon *monitor.Monitor, in *statemachine.Input, now time.Time) {
	o := in.Outcome
	if in.Kind != statemachine.InputOutcome || o == nil || o.Kind != statemachine.ServerFetchCILogs || len(o.Logs) == 0 {
		return
	}
	f, _ := mon.LastFacts()
	if f == nil {
		return
	}
	ref := mon.Ref
	repo := ref.Owner + "/" + ref.Repo
	var flaky []int
	fm.mu.Lock()
	fm.load()
	for i := range o.Logs {
		l := &o.Logs[i]
		if l.Error != "" {
			continue
		}
		sig := prstatus.SignatureOf(l.Check, string(l.Tail))
		l.Signature = &sig
		fm.m.Failed(repo, sig, ref.Number, f.HeadSHA, l.JobID, now)
		if e := fm.m.Evidence(repo, sig); e.Flaky {
			l.Flaky = e.Sentence(ref.Number)
			flaky = append(flaky, i)
		}
	}
	fm.save()
	fm.mu.Unlock()
	if len(flaky) == 0 {
		return
	}
	files, known := fm.changedFiles(ctx, gh, ref)
	for _, i := range flaky {
		o.Logs[i].TestChanged = !known || o.Logs[i].Signature.TouchedBy(files)
	}
}

// changedFiles reads the pull request's changed files; known is false when they could not all be
// read (then no test counts as untouched).
func (fm *failureMemory) changedFiles(ctx context.Context, gh GitHub, ref prstatus.PRRef) (files []string, known bool) {
	cf, ok := gh.(changedFiles)
	if !ok {
		return nil, false
	}
	files, complete, err := cf.ChangedFiles(ctx, ref)
	if err != nil {
		fm.log.Warn("the pull request's changed files could not be read; its flaky failures go to the agent", "pr", ref.String(), "error", err.Error())
		return nil, false
	}
	return files, complete
}

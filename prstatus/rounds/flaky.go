package rounds

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Failures remembered per repository (docs/watcher.md#flaky-checks): each failure signature and
// the runs it was seen in. A signature that failed and then passed on the same commit (a re-run)
// is flaky. The memory is bounded: the newest runs of each signature, the signatures and
// repositories seen last.

// Bounds of FlakyMemory.
const (
	maxRunsPerSignature = 10
	maxSignaturesInRepo = 100
	maxFlakyRepos       = 50
	// recentRuns is how many of a signature's newest runs the evidence counts.
	recentRuns = 5
)

// FlakyMemory is the failures of every repository a server watched, by "owner/repo".
type FlakyMemory struct {
	Repos map[string]*RepoFailures `json:"repos,omitempty"`
}

// RepoFailures is one repository's failure signatures, by Key.
type RepoFailures struct {
	Signatures map[string]*SignatureRuns `json:"signatures"`
}

// SignatureRuns is one signature and the runs of its check it was seen in, oldest first.
type SignatureRuns struct {
	Signature prstatus.FailureSignature `json:"signature"`
	Runs      []CheckRun                `json:"runs"`
}

// CheckRun is one run of the signature's check on a pull request's commit: failed with the
// signature, or passed (a re-run of a commit the signature failed on).
type CheckRun struct {
	PR     int       `json:"pr"`
	Commit string    `json:"commit"`
	Job    int64     `json:"job,omitempty"`
	Passed bool      `json:"passed,omitempty"`
	At     time.Time `json:"at"`
}

// Failed records a failure with sig of pull request pr's job on commit at at. The same job seen
// again is one run.
func (m *FlakyMemory) Failed(repo string, sig prstatus.FailureSignature, pr int, commit string, job int64, at time.Time) {
	r := m.repo(repo)
	s, ok := r.Signatures[sig.Key()]
	if !ok {
		s = &SignatureRuns{Signature: sig}
		r.Signatures[sig.Key()] = s
	}
	if job != 0 && slices.ContainsFunc(s.Runs, func(r CheckRun) bool { return r.Job == job && r.PR == pr }) {
		return
	}
	s.add(CheckRun{PR: pr, Commit: commit, Job: job, At: at})
	r.trim()
	m.trim()
}

// Passed records that the checks named in passed pass on pull request pr's commit: each
// signature of theirs that failed on that commit gains a passing run there (once). It reports
// whether anything was recorded.
func (m *FlakyMemory) Passed(repo string, pr int, commit string, passed []string, at time.Time) bool {
	r := m.Repos[repo]
	if r == nil {
		return false
	}
	changed := false
	for _, s := range r.Signatures {
		if !slices.Contains(passed, s.Signature.Check) || !s.failedOn(pr, commit) || s.passedOn(pr, commit) {
			continue
		}
		s.add(CheckRun{PR: pr, Commit: commit, Passed: true, At: at})
		changed = true
	}
	return changed
}

// Evidence is what the memory says about a signature.
type Evidence struct {
	// Flaky: it failed and then passed on the same commit at least once.
	Flaky bool
	// PassedOnRerun are the pull requests where that happened, ascending.
	PassedOnRerun []int
	// Failed of Recent are the failures among the signature's newest runs.
	Failed, Recent int
}

// Evidence returns what is known of sig in repo.
func (m *FlakyMemory) Evidence(repo string, sig prstatus.FailureSignature) Evidence {
	var e Evidence
	r := m.Repos[repo]
	if r == nil {
		return e
	}
	s := r.Signatures[sig.Key()]
	if s == nil {
		return e
	}
	for _, run := range s.Runs {
		if run.Passed && s.failedOn(run.PR, run.Commit) && !slices.Contains(e.PassedOnRerun, run.PR) {
			e.PassedOnRerun = append(e.PassedOnRerun, run.PR)
		}
	}
	slices.Sort(e.PassedOnRerun)
	e.Flaky = len(e.PassedOnRerun) > 0
	recent := s.Runs[max(0, len(s.Runs)-recentRuns):]
	e.Recent = len(recent)
	for _, run := range recent {
		if !run.Passed {
			e.Failed++
		}
	}
	return e
}

// Sentence says the evidence as a task carries it, from pull request pr's side: "passed on a
// re-run of the same commit on #41 and on this PR; failed 3 of the last 5 runs".
func (e Evidence) Sentence(pr int) string {
	if !e.Flaky {
		return ""
	}
	var on []string
	this := false
	for _, n := range e.PassedOnRerun {
		if n == pr {
			this = true
			continue
		}
		on = append(on, fmt.Sprintf("#%d", n))
	}
	where := strings.Join(on, " and ")
	switch {
	case this && where != "":
		where += " and on this PR"
	case this:
		where = "this PR"
	}
	return fmt.Sprintf("passed on a re-run of the same commit on %s; failed %d of the last %d runs", where, e.Failed, e.Recent)
}

func (m *FlakyMemory) repo(name string) *RepoFailures {
	if m.Repos == nil {
		m.Repos = map[string]*RepoFailures{}
	}
	r := m.Repos[name]
	if r == nil {
		r = &RepoFailures{Signatures: map[string]*SignatureRuns{}}
		m.Repos[name] = r
	}
	if r.Signatures == nil {
		r.Signatures = map[string]*SignatureRuns{}
	}
	return r
}

func (s *SignatureRuns) add(run CheckRun) {
	s.Runs = append(s.Runs, run)
	if len(s.Runs) > maxRunsPerSignature {
		s.Runs = slices.Clone(s.Runs[len(s.Runs)-maxRunsPerSignature:])
	}
}

func (s *SignatureRuns) failedOn(pr int, commit string) bool {
	return slices.ContainsFunc(s.Runs, func(r CheckRun) bool { return !r.Passed && r.PR == pr && r.Commit == commit })
}

func (s *SignatureRuns) passedOn(pr int, commit string) bool {
	return slices.ContainsFunc(s.Runs, func(r CheckRun) bool { return r.Passed && r.PR == pr && r.Commit == commit })
}

func (s *SignatureRuns) last() time.Time {
	if len(s.Runs) == 0 {
		return time.Time{}
	}
	return s.Runs[len(s.Runs)-1].At
}

// trim forgets the signatures seen longest ago past the bound (ties by key: the same every time).
func (r *RepoFailures) trim() {
	for len(r.Signatures) > maxSignaturesInRepo {
		keys := slices.SortedFunc(maps.Keys(r.Signatures), func(a, b string) int {
			return cmp.Or(r.Signatures[a].last().Compare(r.Signatures[b].last()), strings.Compare(a, b))
		})
		delete(r.Signatures, keys[0])
	}
}

// trim forgets the repositories seen longest ago past the bound.
func (m *FlakyMemory) trim() {
	last := func(r *RepoFailures) time.Time {
		var t time.Time
		for _, s := range r.Signatures {
			if s.last().After(t) {
				t = s.last()
			}
		}
		return t
	}
	for len(m.Repos) > maxFlakyRepos {
		keys := slices.SortedFunc(maps.Keys(m.Repos), func(a, b string) int {
			return cmp.Or(last(m.Repos[a]).Compare(last(m.Repos[b])), strings.Compare(a, b))
		})
		delete(m.Repos, keys[0])
	}
}

package prstatus

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// checkBucket is where one check lands. Every check lands in exactly one.
type checkBucket int

const (
	bucketPassed checkBucket = iota
	bucketFailed
	bucketCancelled
	bucketPending
)

// bucketOf classifies one rollup context. Anything GitHub may add later and we do not know is
// treated as a failure: a red light that is wrong costs a look, a green one that is wrong costs a
// broken merge.
func bucketOf(c Check) (checkBucket, string) {
	if isStatusContext(c) {
		state := strings.ToUpper(c.State)
		switch state {
		case "SUCCESS":
			return bucketPassed, state
		case "PENDING", "EXPECTED", "":
			return bucketPending, state
		}
		return bucketFailed, state
	}
	status, conclusion := strings.ToUpper(c.Status), strings.ToUpper(c.Conclusion)
	// A run without a status but with a conclusion can only have completed.
	if status != "COMPLETED" && !(status == "" && conclusion != "") {
		if status == "" {
			status = "PENDING"
		}
		return bucketPending, status
	}
	switch conclusion {
	case "SUCCESS", "NEUTRAL", "SKIPPED":
		return bucketPassed, conclusion
	case "CANCELLED", "STALE":
		return bucketCancelled, conclusion
	}
	return bucketFailed, conclusion
}

func isStatusContext(c Check) bool {
	if c.Kind != "" {
		return c.Kind == KindStatusContext
	}
	return c.State != "" && c.Status == "" && c.Conclusion == ""
}

// checkKey names a check across commits: its kind, workflow and name.
type checkKey struct {
	kind           CheckKind
	workflow, name string
}

func checkKeyOf(c Check) checkKey { return checkKey{c.Kind, c.WorkflowName, c.Name} }

// failingOnBase is the set of checks whose latest run failed on the base branch's tip.
func failingOnBase(s *Snapshot) map[checkKey]bool {
	out := map[checkKey]bool{}
	for _, c := range dedupeChecks(s.BaseChecks) {
		if b, _ := bucketOf(c); b == bucketFailed {
			out[checkKeyOf(c)] = true
		}
	}
	return out
}

// dedupeChecks keeps one context per (kind, workflow, name): the rollup keeps superseded runs
// next to their re-runs (a failed run a later run replaced, a queued duplicate that never ran),
// and only the latest run of a check counts, as on GitHub's checks page and for branch
// protection. The latest is the highest database id (ids grow with every run); between commit
// statuses, which have none, the one reported last.
func dedupeChecks(in []Check) []Check {
	seen := make(map[checkKey]int, len(in))
	out := make([]Check, 0, len(in))
	for _, c := range in {
		k := checkKeyOf(c)
		if i, ok := seen[k]; ok {
			if compareRuns(c, out[i]) > 0 {
				out[i] = c
			}
			continue
		}
		seen[k] = len(out)
		out = append(out, c)
	}
	return out
}

// compareRuns orders two runs of one check, newest last. Database ids grow with every run, and
// statuses have their report time; the other fields only make the choice independent of input
// order when those tie.
func compareRuns(a, b Check) int {
	return cmp.Or(
		cmp.Compare(a.DatabaseID, b.DatabaseID),
		a.At.Compare(b.At),
		cmp.Compare(a.WorkflowRunID, b.WorkflowRunID),
		strings.Compare(a.Status, b.Status),
		strings.Compare(a.Conclusion, b.Conclusion),
		strings.Compare(a.State, b.State),
		strings.Compare(a.URL, b.URL),
		compareBool(a.IsRequired, b.IsRequired),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// requiredChecks is every check context the base branch requires: its rules' and those GitHub
// marks isRequired in the rollup (a ruleset the token cannot read still marks them), sorted.
func requiredChecks(s *Snapshot) []string {
	names := slices.Clone(s.Rules.RequiredChecks)
	for _, c := range s.Checks {
		if c.IsRequired {
			names = append(names, c.Name)
		}
	}
	return sortedUnique(names)
}

// MissingRequiredChecks names the checks the base branch requires that have not reported on the
// head at all, sorted. The watcher reads the check counts of such a pull request in every look:
// a required check reporting success on a green rollup moves nothing else.
func MissingRequiredChecks(s *Snapshot) []string {
	if s == nil {
		return nil
	}
	reported := map[string]bool{}
	for _, c := range s.Checks {
		reported[c.Name] = true
	}
	var out []string
	for _, name := range requiredChecks(s) {
		if !reported[name] {
			out = append(out, name)
		}
	}
	return out
}

// deriveChecks counts the head commit's checks (the latest run of each), lists the ones that are
// not green, and names the required checks that have not reported on the head at all.
func deriveChecks(s *Snapshot) CIFacts {
	ci := CIFacts{FailedChecks: []CheckFact{}, Required: requiredChecks(s)}
	onBase := failingOnBase(s)
	reported := map[string]bool{}
	for _, c := range dedupeChecks(s.Checks) {
		bucket, result := bucketOf(c)
		f := CheckFact{
			Name:          c.Name,
			Kind:          c.Kind,
			Result:        result,
			URL:           c.URL,
			WorkflowRunID: c.WorkflowRunID,
			Workflow:      c.WorkflowName,
			Required:      c.IsRequired || slices.Contains(ci.Required, c.Name),
		}
		if !isStatusContext(c) {
			f.JobID = c.DatabaseID
		}
		reported[c.Name] = true
		ci.Total++
		switch bucket {
		case bucketPassed:
			ci.Passed++
			ci.PassedChecks = append(ci.PassedChecks, c.Name)
		case bucketFailed:
			ci.Failed++
			f.FailingOnBase = onBase[checkKeyOf(c)]
			ci.FailedChecks = append(ci.FailedChecks, f)
		case bucketCancelled:
			ci.Cancelled++
			ci.CancelledChecks = append(ci.CancelledChecks, f)
		case bucketPending:
			ci.Pending++
			ci.PendingChecks = append(ci.PendingChecks, f)
		}
	}
	for _, name := range ci.Required {
		if !reported[name] {
			ci.Missing = append(ci.Missing, name)
		}
	}
	ci.PassedChecks = sortedUnique(ci.PassedChecks)
	for _, list := range [][]CheckFact{ci.FailedChecks, ci.CancelledChecks, ci.PendingChecks} {
		slices.SortFunc(list, compareCheckFacts)
	}
	return ci
}

// DefaultChecksGrace is how long after a push an empty rollup, on a base branch that requires no
// check, is taken for checks that have not registered yet rather than for a head without CI.
// GitHub Actions registers its check suites within seconds of a push; other CI apps take longer.
const DefaultChecksGrace = time.Minute

// ChecksGraceEnd is when the grace for checks to register on the head ends (ok false: there is
// none). It applies to an open pull request whose head has no check at all, on a base branch that
// requires none, pushed (or opened) less than grace ago. The push time is the newer of the head
// commit's committed date and the pull request's creation, on GitHub's clocks: a date in the
// future by more than the grace (a committer's clock far ahead) gets none. The watcher publishes
// its snapshot again when the grace ends, so that Derive can say the head is green.
func ChecksGraceEnd(s *Snapshot, now time.Time, grace time.Duration) (time.Time, bool) {
	if s == nil || grace <= 0 || len(s.Checks) > 0 || len(requiredChecks(s)) > 0 ||
		s.State == StateMerged || s.State == StateClosed || s.Merged || s.Closed {
		return time.Time{}, false
	}
	pushed := s.CreatedAt
	for _, c := range s.Commits {
		if c.OID == s.HeadOID && c.CommittedDate.After(pushed) {
			pushed = c.CommittedDate
		}
	}
	if pushed.IsZero() || !pushed.Before(now.Add(grace)) {
		return time.Time{}, false
	}
	end := pushed.Add(grace)
	return end, now.Before(end)
}

func compareCheckFacts(a, b CheckFact) int {
	return cmp.Or(
		strings.Compare(a.Workflow, b.Workflow),
		strings.Compare(a.Name, b.Name),
		strings.Compare(string(a.Kind), string(b.Kind)),
		cmp.Compare(a.JobID, b.JobID),
		cmp.Compare(a.WorkflowRunID, b.WorkflowRunID),
		strings.Compare(a.Result, b.Result),
		strings.Compare(a.URL, b.URL),
		compareBool(a.Required, b.Required),
	)
}

// DisplayName is how people see the check: "Workflow / job", or the name alone.
func (c CheckFact) DisplayName() string {
	if c.Workflow != "" {
		return c.Workflow + " / " + c.Name
	}
	return c.Name
}

// keyID identifies this run of the check in an attention key: a re-run has a new job id.
func (c CheckFact) keyID() string {
	if c.JobID != 0 {
		return c.DisplayName() + "#" + itoa(c.JobID)
	}
	return c.DisplayName()
}

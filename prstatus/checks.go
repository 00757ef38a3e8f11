package prstatus

import (
	"cmp"
	"slices"
	"strings"
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

// dedupeChecks keeps one context per (kind, workflow, name): a re-run leaves the old run in the
// rollup next to the new one, and the newest run (the highest database id) is the one that counts.
func dedupeChecks(in []Check) []Check {
	type key struct {
		kind           CheckKind
		workflow, name string
	}
	seen := make(map[key]int, len(in))
	out := make([]Check, 0, len(in))
	for _, c := range in {
		k := key{c.Kind, c.WorkflowName, c.Name}
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

// compareRuns orders two runs of one check, newest last. Database ids grow with every run; the
// other fields only make the choice independent of input order when ids tie.
func compareRuns(a, b Check) int {
	return cmp.Or(
		cmp.Compare(a.DatabaseID, b.DatabaseID),
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

// deriveChecks counts the head commit's checks and lists the ones that are not green.
func deriveChecks(in []Check) CIFacts {
	ci := CIFacts{FailedChecks: []CheckFact{}}
	for _, c := range dedupeChecks(in) {
		bucket, result := bucketOf(c)
		f := CheckFact{
			Name:          c.Name,
			Kind:          c.Kind,
			Result:        result,
			URL:           c.URL,
			WorkflowRunID: c.WorkflowRunID,
			Workflow:      c.WorkflowName,
			Required:      c.IsRequired,
		}
		if !isStatusContext(c) {
			f.JobID = c.DatabaseID
		}
		ci.Total++
		switch bucket {
		case bucketPassed:
			ci.Passed++
		case bucketFailed:
			ci.Failed++
			ci.FailedChecks = append(ci.FailedChecks, f)
		case bucketCancelled:
			ci.Cancelled++
			ci.CancelledChecks = append(ci.CancelledChecks, f)
		case bucketPending:
			ci.Pending++
			ci.PendingChecks = append(ci.PendingChecks, f)
		}
	}
	for _, list := range [][]CheckFact{ci.FailedChecks, ci.CancelledChecks, ci.PendingChecks} {
		slices.SortFunc(list, compareCheckFacts)
	}
	return ci
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

package statemachine

import "github.com/prmonitor/prmonitor/prstatus"

// whenReadyPR is approved with its required check still running, on a repository that allows
// auto-merge.
func whenReadyPR() *pr {
	p := approvedPR().running()
	p.s.AutoMergeAllowed = true
	p.s.Rules.RequiredChecks = []string{"test"}
	return p
}

// autoMergedPR is whenReadyPR with auto-merge on.
func autoMergedPR() *pr {
	p := whenReadyPR()
	p.s.AutoMerge = &prstatus.AutoMerge{EnabledBy: "dev"}
	return p
}

// queuePR is approved and green on a base branch that merges through a merge queue.
func queuePR() *pr {
	p := approvedPR()
	p.s.MergeQueueRequired = true
	return p
}

// heldPR is approved and green, GitHub holding the merge for a rule prmonitor cannot read, on a
// repository that allows auto-merge.
func heldPR() *pr {
	p := approvedPR()
	p.s.MergeStateStatus, p.s.AutoMergeAllowed = "BLOCKED", true
	return p
}

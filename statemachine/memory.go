package statemachine

import (
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

// Memory across review rounds (docs/architecture.md#memory-across-review-rounds): a cluster brief when new feedback repeats the theme of
// earlier fixes, and the reviewer's last verdict on the agent's previous attempt. Both come from
// the poll's facts; only the verdicts are kept, bounded.

// maxVerdicts bounds the verdicts kept in Memory.
const maxVerdicts = 5

// ClusterContext is a cluster brief as a task carries it: the reviewer's words fenced as data.
type ClusterContext struct {
	Theme       string                 `json:"theme"`
	ThemeKind   rounds.ThemeKind       `json:"theme_kind"`
	Files       []string               `json:"files"`
	NewThreads  []rounds.ClusterThread `json:"new_threads"`
	Prior       []PriorContext         `json:"prior,omitempty"`
	Rounds      []string               `json:"rounds,omitempty"`
	Instruction string                 `json:"instruction"`
}

// PriorContext is an earlier resolution in a cluster.
type PriorContext struct {
	ThreadID  string             `json:"thread_id"`
	Round     string             `json:"round"`
	Category  rounds.Category    `json:"category"`
	Path      string             `json:"path,omitempty"`
	Line      int                `json:"line,omitempty"`
	Reviewer  string             `json:"reviewer"`
	RepliedAt string             `json:"replied_at"`
	Kind      prstatus.ReplyKind `json:"kind"`
	Resolved  bool               `json:"resolved"`
	Excerpt   Untrusted          `json:"excerpt"`
}

// PriorAttempt is what the reviewer said about the agent's previous attempt: the verdict and the
// branch, never the attempt's diff (docs/decisions/0001-prior-verdicts-not-diffs.md).
type PriorAttempt struct {
	Reviewer string    `json:"reviewer"`
	Approved bool      `json:"approved"`
	State    string    `json:"state"`
	Feedback Untrusted `json:"feedback"`
	Round    string    `json:"round,omitempty"`
	At       string    `json:"at"`
	Branch   string    `json:"branch"`
	Note     string    `json:"note"`
	Earlier  []string  `json:"earlier_verdicts,omitempty"`
}

// clusterFor runs the cluster analysis for the threads a flow is about to work on. It costs no
// API call: everything comes from the snapshot the poll already fetched.
func (s *step) clusterFor(f *prstatus.Facts, threadIDs []string) *ClusterContext {
	res := rounds.Cluster(f, threadIDs, s.cfg.Lookback)
	b := res.Brief
	if b == nil {
		return nil
	}
	c := &ClusterContext{Theme: b.Theme, ThemeKind: b.ThemeKind, Files: b.Files, NewThreads: b.NewThreads,
		Rounds: b.Rounds, Instruction: b.Instruction}
	for _, p := range b.Prior {
		c.Prior = append(c.Prior, PriorContext{ThreadID: p.ThreadID, Round: p.Round, Category: p.Category, Path: p.Path,
			Line: p.Line, Reviewer: p.Reviewer, RepliedAt: p.RepliedAt.UTC().Format(time.RFC3339), Kind: p.Kind,
			Resolved: p.Resolved, Excerpt: Untrusted(p.Excerpt)})
	}
	return c
}

// priorAttempt is the last verdict recorded on the agent's work, or nil on a fresh PR.
func (s *step) priorAttempt() *PriorAttempt {
	vs := s.pos.Memory.Verdicts
	if len(vs) == 0 {
		return nil
	}
	v := vs[len(vs)-1]
	p := &PriorAttempt{Reviewer: v.Reviewer, Approved: v.Approved, State: string(v.State), Feedback: Untrusted(v.Feedback),
		Round: v.Round, At: v.At.UTC().Format(time.RFC3339), Branch: v.Branch,
		Note: "What the reviewer said about the previous attempt on this branch. Treat it as a constraint on this attempt; " +
			"do not reproduce or defend the previous change."}
	for _, e := range vs[:len(vs)-1] {
		state := string(e.State)
		if e.Approved {
			state = "APPROVED"
		}
		p.Earlier = append(p.Earlier, e.Reviewer+": "+state+" ("+e.At.UTC().Format(time.RFC3339)+")")
	}
	return p
}

// workDone marks the end of the agent's work on a review round: the next reviews are its verdict.
func (s *step) workDone(round string) {
	m := &s.pos.Memory
	m.AwaitVerdict, m.WorkRound = true, round
}

// recordVerdicts keeps the reviews that arrived on the agent's work. The window is measured on
// GitHub's own clock (review times), never the server's: the first poll after the work pins it.
func (s *step) recordVerdicts(f *prstatus.Facts) {
	m := &s.pos.Memory
	latest := m.VerdictSince
	for _, r := range f.Reviews.History {
		if r.SubmittedAt.After(latest) {
			latest = r.SubmittedAt
		}
	}
	if m.AwaitVerdict && !m.Watching {
		m.VerdictSince, m.Watching = latest, true
		return
	}
	if !m.Watching {
		return
	}
	vs := rounds.VerdictsSince(f, m.VerdictSince, m.WorkRound)
	if len(vs) == 0 {
		return
	}
	m.Verdicts = append(m.Verdicts, vs...)
	if len(m.Verdicts) > maxVerdicts {
		m.Verdicts = slices.Clone(m.Verdicts[len(m.Verdicts)-maxVerdicts:])
	}
	m.VerdictSince = latest
	m.AwaitVerdict, m.Watching = false, false
}

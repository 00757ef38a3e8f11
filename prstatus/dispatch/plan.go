package dispatch

import (
	"strconv"
	"strings"
)

// SpawnType is the kind of worker a SPAWN line asks for.
type SpawnType string

// The workers, one template each.
const (
	SpawnSelfReview      SpawnType = "self-review"
	SpawnSRFix           SpawnType = "sr-fix"
	SpawnCIFix           SpawnType = "ci-fix"
	SpawnAddressFeedback SpawnType = "address-feedback"
	SpawnFindings        SpawnType = "findings"
	SpawnRebase          SpawnType = "rebase"
	SpawnImpl            SpawnType = "impl"
)

// why is the reason a task states for its worker, in the dispatcher's words alone (the decision's
// reason may name logins and branches, which are GitHub's).
func (t SpawnType) why() string {
	switch t {
	case SpawnSelfReview:
		return "the head has no self-review yet"
	case SpawnSRFix:
		return "the self-review of the head found issues"
	case SpawnCIFix:
		return "a check failed on the head"
	case SpawnAddressFeedback:
		return "review feedback on the head has no answer"
	case SpawnFindings:
		return "a reviewer requested changes"
	case SpawnRebase:
		return "the pull request conflicts with its base branch"
	}
	return "no open pull request to work on and no work in progress: an open unassigned issue"
}

// SpawnTypes is every worker type.
var SpawnTypes = []SpawnType{SpawnSelfReview, SpawnSRFix, SpawnCIFix, SpawnAddressFeedback, SpawnFindings, SpawnRebase, SpawnImpl}

// Rule names the rule that decided a pull request.
type Rule string

// The rules, in the order they are tried.
const (
	RuleWIP           Rule = "0"
	RuleSkip          Rule = "skip"
	RuleChanges       Rule = "2"
	RuleConflict      Rule = "3"
	RuleCIFailed      Rule = "4"
	RuleBotMissing    Rule = "5"
	RuleChecksPending Rule = "6"
	RuleSelfReview    Rule = "7"
	RuleBotFindings   Rule = "8"
	RuleThreads       Rule = "9"
	RuleHandoff       Rule = "10"
	RuleNewIssue      Rule = "11"
)

// Decision is what the run does about one pull request.
type Decision string

// The decisions.
const (
	DecisionSpawn     Decision = "spawn"      // this run's worker (a SPAWN line)
	DecisionDeferred  Decision = "deferred"   // needs a worker, but this run's spawns are used up
	DecisionHandoff   Decision = "handoff"    // ready for a human (a HANDOFF line)
	DecisionHandedOff Decision = "handed_off" // already assigned to the hand-off assignee
	DecisionWait      Decision = "wait"       // waiting for checks, bots or GitHub
	DecisionWorking   Decision = "working"    // a fix plan for the head exists: a worker is on it
	DecisionWIP       Decision = "wip"        // the wip label is fresh: a worker holds it
	DecisionSkip      Decision = "skip"       // not worked: an untrusted author or a fork, a draft, one of skip_authors
)

// Spawn is one SPAWN line: a worker to start.
type Spawn struct {
	Type SpawnType `json:"type" jsonschema:"The worker to start.,enum=self-review,enum=sr-fix,enum=ci-fix,enum=address-feedback,enum=findings,enum=rebase,enum=impl"`
	// Number is the pull request's, or the issue's for impl.
	Number int `json:"number" jsonschema:"The pull request's number; the issue's for impl."`
	// SHA is the head commit the worker is for; empty for impl.
	SHA    string `json:"sha" jsonschema:"The full head commit the worker is for; empty for impl."`
	Reason string `json:"reason"`
	// Task is the worker's instructions, rendered from its template.
	Task string `json:"task" jsonschema:"The worker's instructions: hand them to the worker as they are."`

	task TaskData
}

// Line renders the SPAWN line.
func (s Spawn) Line() string {
	return "SPAWN:" + string(s.Type) + ":" + strconv.Itoa(s.Number) + ":" + s.SHA
}

// Handoff is one HANDOFF line: a pull request ready for a human.
type Handoff struct {
	Number int    `json:"number"`
	Reason string `json:"reason"`
}

// Line renders the HANDOFF line.
func (h Handoff) Line() string { return "HANDOFF:" + strconv.Itoa(h.Number) }

// PRDecision is the run's decision about one open pull request, with the rule that made it.
type PRDecision struct {
	Number   int      `json:"number"`
	Decision Decision `json:"decision" jsonschema:"enum=spawn,enum=deferred,enum=handoff,enum=handed_off,enum=wait,enum=working,enum=wip,enum=skip"`
	Rule     Rule     `json:"rule" jsonschema:"The rule that decided.,enum=0,enum=skip,enum=2,enum=3,enum=4,enum=5,enum=6,enum=7,enum=8,enum=9,enum=10"`
	Reason   string   `json:"reason"`
}

// MutationAction is one kind of write.
type MutationAction string

// The only writes the dispatcher makes: labels and assignees.
const (
	ActionRemoveLabel MutationAction = "remove_label"
	ActionAddLabel    MutationAction = "add_label"
	ActionAssign      MutationAction = "add_assignee"
)

// Mutation is one write on GitHub: a label removed or added, an assignee added, on a pull
// request or an issue (Number).
type Mutation struct {
	Action MutationAction `json:"action" jsonschema:"enum=remove_label,enum=add_label,enum=add_assignee"`
	Number int            `json:"number"`
	// Value is the label's name or the assignee's login.
	Value string `json:"value"`
	// Applied is true once GitHub accepted it; never with --dry-run.
	Applied bool `json:"applied" jsonschema:"True once GitHub accepted the write; never with dry_run."`
}

// Need is data a plan could not do without: the run reads it and decides again.
type Need struct {
	// CommentsOf are the pull requests whose older conversation comments the rules must see
	// before they look for the user's self-reviews and fix plans.
	CommentsOf []int
	// ThreadsOf are the pull requests whose unresolved threads' replies rule 9 must see.
	ThreadsOf []int
	// Issues is how many open unassigned issues rule 11 may assign (0: none needed).
	Issues int
}

// Empty reports whether nothing more is needed.
func (n Need) Empty() bool { return len(n.CommentsOf) == 0 && len(n.ThreadsOf) == 0 && n.Issues == 0 }

// Plan is the outcome of Decide: what to print and what to write, in the order to write it.
type Plan struct {
	Spawns    []Spawn      `json:"spawns"`
	Handoffs  []Handoff    `json:"handoffs"`
	PRs       []PRDecision `json:"prs"`
	Mutations []Mutation   `json:"mutations"`
	// Need, when not empty, makes the plan provisional: read what it names, then decide again.
	Need Need `json:"-"`
}

// Lose records that the run does not hold pull request n's lock after all (another run took it
// first): its decision becomes wip, with why.
func (p *Plan) Lose(n int, why string) {
	for i := range p.PRs {
		if p.PRs[i].Number == n {
			p.PRs[i].Decision, p.PRs[i].Reason = DecisionWIP, p.PRs[i].Reason+"; "+why
		}
	}
}

// Lines renders the plan's stdout lines: the SPAWN lines, then the HANDOFF lines, one per line;
// nothing when nothing is due.
func (p Plan) Lines() string {
	var b strings.Builder
	for _, s := range p.Spawns {
		b.WriteString(s.Line() + "\n")
	}
	for _, h := range p.Handoffs {
		b.WriteString(h.Line() + "\n")
	}
	return b.String()
}

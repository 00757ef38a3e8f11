package dispatch

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Decide runs the rules over the snapshot at time now. It is pure: the same snapshot, config and
// time always give the same plan, whatever the order of the snapshot's lists. A plan whose Need
// is not empty is provisional: read what it names into the snapshot and decide again.
//
// Pull requests are taken in ascending number; for each, the first rule that matches decides.
// The lowest pull requests that need a worker get the run's spawns (at most MaxSpawns); a later
// one is deferred, and the run goes on: later pull requests are still handed off and have stale
// locks removed. Writes come in this order: stale locks removed, hand-offs, then the spawns'
// locks and issue assignments, so a write that fails never leaves a lock or an assigned issue
// without its SPAWN line.
func Decide(s *Snapshot, cfg Config, now time.Time) Plan {
	d := &decider{cfg: cfg.withUser(s.Viewer), now: now, unrenderable: s.Unrenderable}
	d.plan = Plan{Spawns: []Spawn{}, Handoffs: []Handoff{}, PRs: []PRDecision{}, Mutations: []Mutation{}}

	prs := make([]*PR, len(s.PRs))
	for i := range s.PRs {
		prs[i] = &s.PRs[i]
	}
	slices.SortStableFunc(prs, func(a, b *PR) int { return cmp.Compare(a.Number(), b.Number()) })
	for _, p := range prs {
		d.decidePR(s.Repo, p)
	}
	d.newIssue(s)

	d.plan.Mutations = append(append(append(d.plan.Mutations, d.removals...), d.handoffWrites...), d.spawnWrites...)
	return d.plan
}

// decider is one run of the rules.
type decider struct {
	cfg  Config
	now  time.Time
	plan Plan

	removals, handoffWrites, spawnWrites []Mutation
	// activeWIP: some pull request holds a fresh wip label (it only blocks rule 11).
	activeWIP bool
	// left: some pull request was evaluated past the skips (rule 11 needs none).
	left bool
	// unrenderable are pull requests whose task could not be rendered, with why: skipped.
	unrenderable map[int]string
}

// decidePR applies the trust boundary, rule 0, the skips and rules 2 to 10 to one pull request.
func (d *decider) decidePR(repo RepoRef, p *PR) {
	n := p.Number()
	// Before anything else: a pull request the dispatcher does not work for gets no worker, no
	// hand-off and no write at all, not even a stale lock's removal.
	if why := d.cfg.distrust(p); why != "" {
		if at, known := labeledAt(p, d.cfg.Labels.WIP); hasLabel(p.Labels, d.cfg.Labels.WIP) && known && d.now.Sub(at) <= d.cfg.WIPStaleAfter {
			d.activeWIP = true // someone with triage rights holds it: work is active (rule 11 waits)
			why += "; its " + d.cfg.Labels.WIP + " label is fresh, so work is active"
		}
		d.decide(n, DecisionSkip, RuleSkip, why)
		return
	}
	if why, ok := d.unrenderable[n]; ok {
		d.decide(n, DecisionSkip, RuleSkip, "its task could not be rendered: "+why)
		return
	}
	note := ""
	if hasLabel(p.Labels, d.cfg.Labels.WIP) {
		at, known := labeledAt(p, d.cfg.Labels.WIP)
		if known && d.now.Sub(at) <= d.cfg.WIPStaleAfter {
			d.activeWIP = true
			d.decide(n, DecisionWIP, RuleWIP, fmt.Sprintf("the %s label was applied %s ago; it holds the pull request for %s",
				d.cfg.Labels.WIP, age(d.now.Sub(at)), d.cfg.WIPStaleAfter))
			return
		}
		d.removals = append(d.removals, Mutation{Action: ActionRemoveLabel, Number: n, Value: d.cfg.Labels.WIP})
		note = fmt.Sprintf("stale %s label removed (%s); ", d.cfg.Labels.WIP, staleness(d.now, at, known))
	}
	switch {
	case p.IsDraft:
		d.decide(n, DecisionSkip, RuleSkip, note+"a draft")
		return
	case anyLogin(d.cfg.SkipAuthors, p.Author.Login):
		d.decide(n, DecisionSkip, RuleSkip, note+"by "+who(p.Author.Login)+", one of skip_authors")
		return
	}
	d.left = true

	o := evaluate(p, d.cfg, d.now)
	reason := note + o.reason
	switch o.kind {
	case outcomeWorker:
		if len(d.plan.Spawns) >= d.cfg.MaxSpawns {
			d.decide(n, DecisionDeferred, o.rule, reason+fmt.Sprintf("; this run's %d spawn(s) are taken", d.cfg.MaxSpawns))
			return
		}
		o.task.Repo, o.task.Number, o.task.User, o.task.WIPLabel = repo.String(), n, d.cfg.User, d.cfg.Labels.WIP
		o.task.Reason = o.spawn.why()
		d.plan.Spawns = append(d.plan.Spawns, Spawn{Type: o.spawn, Number: n, SHA: p.HeadOID, Reason: reason, task: o.task})
		d.spawnWrites = append(d.spawnWrites, Mutation{Action: ActionAddLabel, Number: n, Value: d.cfg.Labels.WIP})
		d.decide(n, DecisionSpawn, o.rule, reason)
	case outcomeHandoff:
		d.handoff(p, reason)
	case outcomeNeedThreads:
		d.plan.Need.ThreadsOf = append(d.plan.Need.ThreadsOf, n)
		d.decide(n, DecisionWait, o.rule, reason)
	case outcomeNeedComments:
		d.plan.Need.CommentsOf = append(d.plan.Need.CommentsOf, n)
		d.decide(n, DecisionWait, o.rule, reason)
	default:
		d.decide(n, o.decision, o.rule, reason)
	}
}

// handoff applies rule 10's action: the ready label and the hand-off assignee, unless the pull
// request is already with them.
func (d *decider) handoff(p *PR, reason string) {
	n, who := p.Number(), d.cfg.HandoffAssignee
	if (who != "" && anyLogin(p.Assignees, who)) || (who == "" && hasLabel(p.Labels, d.cfg.Labels.Ready)) {
		d.decide(n, DecisionHandedOff, RuleHandoff, reason+"; already handed off")
		return
	}
	if !hasLabel(p.Labels, d.cfg.Labels.Ready) {
		d.handoffWrites = append(d.handoffWrites, Mutation{Action: ActionAddLabel, Number: n, Value: d.cfg.Labels.Ready})
	}
	if who != "" {
		d.handoffWrites = append(d.handoffWrites, Mutation{Action: ActionAssign, Number: n, Value: who})
	}
	d.plan.Handoffs = append(d.plan.Handoffs, Handoff{Number: n, Reason: reason})
	d.decide(n, DecisionHandoff, RuleHandoff, reason)
}

// newIssue is rule 11: with no open pull request left after the skips and no active WIP, the
// oldest open unassigned issues (label bug first) are assigned to the user and spawned.
func (d *decider) newIssue(s *Snapshot) {
	want := d.cfg.MaxSpawns - len(d.plan.Spawns)
	if d.left || d.activeWIP || want <= 0 {
		return
	}
	if !s.IssuesLoaded {
		d.plan.Need.Issues = want
		return
	}
	for _, is := range pickIssues(s.Issues, want, d.cfg, d.unrenderable) {
		reason := "no open pull request to work on and no work in progress: the oldest open unassigned issue"
		if hasLabel(is.Labels, bugLabel) {
			reason = "no open pull request to work on and no work in progress: the oldest open unassigned bug"
		}
		d.spawnWrites = append(d.spawnWrites, Mutation{Action: ActionAssign, Number: is.Number, Value: d.cfg.User})
		d.plan.Spawns = append(d.plan.Spawns, Spawn{Type: SpawnImpl, Number: is.Number, Reason: reason, task: TaskData{
			Repo: s.Repo.String(), Number: is.Number, User: d.cfg.User, WIPLabel: d.cfg.Labels.WIP, Reason: reason, URL: is.URL,
			ChangesRequestedBy: []string{},
		}})
	}
}

// bugLabel is the label rule 11 takes first.
const bugLabel = "bug"

// pickIssues returns up to n unassigned issues written by people the dispatcher works for
// (Config.trusts), but those in skip (their task could not be rendered): those labelled bug
// first, then any, each group in ascending number.
func pickIssues(issues []Issue, n int, cfg Config, skip map[int]string) []Issue {
	var bugs, rest []Issue
	seen := map[int]bool{}
	for _, is := range issues {
		if len(is.Assignees) > 0 || seen[is.Number] || !cfg.trusts(is.Author, is.AuthorAssociation) || skip[is.Number] != "" {
			continue
		}
		seen[is.Number] = true
		if hasLabel(is.Labels, bugLabel) {
			bugs = append(bugs, is)
		} else {
			rest = append(rest, is)
		}
	}
	byNumber := func(a, b Issue) int { return cmp.Compare(a.Number, b.Number) }
	slices.SortFunc(bugs, byNumber)
	slices.SortFunc(rest, byNumber)
	out := append(bugs, rest...)
	return out[:min(n, len(out))]
}

func (d *decider) decide(n int, dec Decision, rule Rule, reason string) {
	d.plan.PRs = append(d.plan.PRs, PRDecision{Number: n, Decision: dec, Rule: rule, Reason: reason})
}

// labeledAt is when label was last applied to the pull request, from its timeline.
func labeledAt(p *PR, label string) (time.Time, bool) {
	var at time.Time
	found := false
	for _, e := range p.LabelEvents {
		if hasLabel([]string{e.Label}, label) && (!found || e.At.After(at)) {
			at, found = e.At, true
		}
	}
	return at, found
}

// staleness says why a lock counts as stale.
func staleness(now, at time.Time, known bool) string {
	if !known {
		return "no labeled event in its timeline"
	}
	return "applied " + age(now.Sub(at)) + " ago"
}

// age renders a duration for a reason, to the minute.
func age(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	return d.Truncate(time.Minute).String()
}

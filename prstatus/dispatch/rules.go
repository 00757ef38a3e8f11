package dispatch

import (
	"fmt"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// outcomeKind is what rules 2 to 10 conclude about one pull request.
type outcomeKind int

const (
	outcomeOther        outcomeKind = iota // a decision with no action: wait or working
	outcomeWorker                          // it needs a worker (spawn)
	outcomeHandoff                         // it is ready for a human
	outcomeNeedThreads                     // rule 9 needs the threads' replies
	outcomeNeedComments                    // the user's comments may be past the newest page
)

type outcome struct {
	kind     outcomeKind
	decision Decision // for outcomeOther
	rule     Rule
	reason   string
	spawn    SpawnType // for outcomeWorker
	task     TaskData
}

// evaluate applies rules 2 to 10, in order; the first that matches decides. Rule 2 comes first,
// with no exception: nothing below runs while a reviewer's latest verdict requests changes.
func evaluate(p *PR, cfg Config, now time.Time) outcome {
	facts := prstatus.Derive(&p.Snapshot, now)
	head := p.HeadOID
	task := newTask(p)
	worker := func(t SpawnType, rule Rule, reason string) outcome {
		return outcome{kind: outcomeWorker, spawn: t, rule: rule, reason: reason, task: task}
	}
	other := func(d Decision, rule Rule, reason string) outcome {
		return outcome{kind: outcomeOther, decision: d, rule: rule, reason: reason}
	}
	planned := fixPlans(p, cfg.User)
	working := func(rule Rule, what string) outcome {
		return other(DecisionWorking, rule, what+"; a fix plan for the head exists, so a worker is on it")
	}

	// 2: a reviewer's latest opinionated review requests changes.
	if by := facts.Reviews.ChangesRequestedBy; len(by) > 0 {
		for _, l := range by {
			task.ChangesRequestedBy = append(task.ChangesRequestedBy, sanitize.Fence(l))
		}
		return worker(SpawnFindings, RuleChanges, "changes requested by "+joinWho(by))
	}

	// 3: conflicting with the base; mergeability not computed yet cannot be passed over.
	switch p.Mergeable {
	case prstatus.MergeableConflict:
		return worker(SpawnRebase, RuleConflict, "conflicts with "+orBase(p.BaseRef))
	case prstatus.MergeableYes:
	default:
		return other(DecisionWait, RuleConflict, "GitHub is still computing whether it conflicts with "+orBase(p.BaseRef))
	}

	// 4: a check on the head failed.
	if bad := failedChecks(p, facts.CI); bad > 0 {
		if o := unreadComments(p, RuleCIFailed); o != nil {
			return *o
		}
		what := fmt.Sprintf("%d check%s failed on the head", bad, text.Plural(bad, "", "s"))
		if len(planned) > 0 {
			return working(RuleCIFailed, what)
		}
		task.FailedChecks = bad
		return worker(SpawnCIFix, RuleCIFailed, what)
	}

	// 5: a configured review bot has not reviewed at all.
	if missing := botsWithoutReview(p, cfg.ReviewBots); len(missing) > 0 {
		return other(DecisionWait, RuleBotMissing, "no review yet from "+prstatus.JoinNames(missing))
	}

	// 6: checks pending, or none reported on the head yet.
	if pending := pendingChecks(p, facts.CI); pending != "" {
		return other(DecisionWait, RuleChecksPending, pending)
	}

	// 7: the worker's self-review of the head.
	if o := unreadComments(p, RuleSelfReview); o != nil {
		return *o
	}
	sr, ok := selfReview(p, cfg.User)
	if !ok {
		return worker(SpawnSelfReview, RuleSelfReview, "no self-review of the head "+text.ShortSHA(head))
	}
	switch assess(sr.Body) {
	case assessmentFound:
		if len(planned) > 0 {
			return working(RuleSelfReview, "the self-review found issues")
		}
		return worker(SpawnSRFix, RuleSelfReview, "the self-review of "+text.ShortSHA(head)+" found issues")
	case assessmentNone:
		return other(DecisionWait, RuleSelfReview, "the self-review of "+text.ShortSHA(head)+" has no Assessment line yet")
	}

	// 8: a bot approved the head but listed findings no fix plan names.
	if found := botFindings(p, cfg.ReviewBots); len(found) > 0 {
		open := unnamed(found, planned)
		switch {
		case len(planned) == 0:
			task.Findings, task.FindingsOmitted = found[:min(len(found), maxFindings)], max(0, len(found)-maxFindings)
			return worker(SpawnAddressFeedback, RuleBotFindings, fmt.Sprintf("review bots listed %d finding%s on the head", len(found), text.Plural(len(found), "", "s")))
		case len(open) > 0:
			return working(RuleBotFindings, fmt.Sprintf("%d finding%s not named in the fix plan", len(open), text.Plural(len(open), "", "s")))
		}
	}

	// 9: an unresolved review thread nobody answered.
	if unresolved := unresolvedThreads(p); len(unresolved) > 0 {
		if !p.ThreadRepliesLoaded {
			return outcome{kind: outcomeNeedThreads, rule: RuleThreads, reason: "reading the replies of unresolved review threads"}
		}
		if quiet := unanswered(unresolved, cfg); quiet > 0 {
			what := fmt.Sprintf("%d unresolved review thread%s without a reply", quiet, text.Plural(quiet, "", "s"))
			if len(planned) > 0 {
				return working(RuleThreads, what)
			}
			task.Threads = quiet
			return worker(SpawnAddressFeedback, RuleThreads, what)
		}
	}

	// 10: every review bot evaluated the head.
	if stale := botsNotOnHead(p, cfg.ReviewBots); len(stale) > 0 {
		return other(DecisionWait, RuleHandoff, "waiting for "+prstatus.JoinNames(stale)+" to evaluate the head "+text.ShortSHA(head))
	}
	reason := "checks green, self-review clean"
	if len(cfg.ReviewBots) > 0 {
		reason += ", every review bot evaluated the head " + text.ShortSHA(head)
	}
	return outcome{kind: outcomeHandoff, rule: RuleHandoff, reason: reason}
}

// maxFindings bounds the findings a task lists: a review with thousands of findings is cut, with
// a count of the rest (the worker reads them all on GitHub).
const maxFindings = 50

// newTask is the task data of a pull request: GitHub's names fenced, the base branch in commands
// only when it is safe there.
func newTask(p *PR) TaskData {
	t := TaskData{SHA: p.HeadOID, ShortSHA: text.ShortSHA(p.HeadOID), URL: p.URL, ChangesRequestedBy: []string{},
		HeadRef: sanitize.Fence(p.HeadRef), BaseRef: sanitize.Fence(p.BaseRef)}
	if sanitize.CommandRef(p.BaseRef) {
		t.BaseBranch = p.BaseRef
	}
	return t
}

// unreadComments is the outcome that reads the rest of a pull request's conversation comments
// before a rule looks for the user's, or, past the reader's bound, waits for a human; nil when
// every comment is read.
func unreadComments(p *PR, rule Rule) *outcome {
	switch {
	case p.CommentsCut:
		return &outcome{kind: outcomeOther, decision: DecisionWait, rule: rule,
			reason: "more conversation comments than a run reads, so the user's self-reviews and fix plans may be among the unread: left to a human"}
	case p.CommentsBefore != "":
		return &outcome{kind: outcomeNeedComments, rule: rule, reason: "reading the older conversation comments"}
	}
	return nil
}

// joinWho joins logins for a reason (see who).
func joinWho(logins []string) string {
	out := make([]string, len(logins))
	for i, l := range logins {
		out[i] = who(l)
	}
	return prstatus.JoinNames(out)
}

func orBase(base string) string {
	if !sanitize.PlainName(base) {
		return "the base branch"
	}
	return base
}

// fixPlans are the user's comments that hold a fix plan for the head.
func fixPlans(p *PR, user string) []prstatus.Comment {
	var out []prstatus.Comment
	for _, c := range p.Comments {
		if sameLogin(c.Author.Login, user) && namesHead(c.Body, fixPlanMarker, p.HeadOID) {
			out = append(out, c)
		}
	}
	return out
}

// selfReview is the user's newest self-review of the head.
func selfReview(p *PR, user string) (prstatus.Comment, bool) {
	var latest prstatus.Comment
	found := false
	for _, c := range p.Comments {
		if sameLogin(c.Author.Login, user) && namesHead(c.Body, selfReviewMarker, p.HeadOID) &&
			(!found || !c.CreatedAt.Before(latest.CreatedAt)) {
			latest, found = c, true
		}
	}
	return latest, found
}

// failedChecks counts the head's failed and cancelled checks. The rollup's state stands in when
// the failure is past the first page of checks.
func failedChecks(p *PR, ci prstatus.CIFacts) int {
	n := ci.Failed + ci.Cancelled
	if n == 0 && p.ChecksCut && (p.RollupState == "FAILURE" || p.RollupState == "ERROR") {
		n = 1
	}
	return n
}

// pendingChecks says why the checks are not settled, or "" when they are.
func pendingChecks(p *PR, ci prstatus.CIFacts) string {
	switch {
	case ci.Pending > 0:
		return fmt.Sprintf("%d check%s still running on the head", ci.Pending, text.Plural(ci.Pending, "", "s"))
	case p.RollupState == "EXPECTED" || (p.ChecksCut && p.RollupState == "PENDING"):
		return "checks still running on the head"
	case p.RollupState == "" && len(p.Checks) == 0:
		return "no check reported on the head yet"
	}
	return ""
}

// botReviews are the reviews signed by bot, oldest first as GitHub lists them: those holding its
// sentinel and posted by someone who may sign for it (ReviewBot.signs).
func botReviews(p *PR, bot ReviewBot) []prstatus.Review {
	var out []prstatus.Review
	for _, r := range p.Reviews {
		if !bot.signs(r) {
			continue
		}
		for _, name := range botNames(r.Body) {
			if strings.EqualFold(name, bot.Name) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// botsWithoutReview are the configured review bots with no review at all (rule 5).
func botsWithoutReview(p *PR, bots []ReviewBot) []string {
	var out []string
	for _, b := range bots {
		if len(botReviews(p, b)) == 0 {
			out = append(out, b.Name)
		}
	}
	return out
}

// botsNotOnHead are the configured review bots none of whose reviews evaluated the head (rule 10).
func botsNotOnHead(p *PR, bots []ReviewBot) []string {
	var out []string
	for _, b := range bots {
		current := false
		for _, r := range botReviews(p, b) {
			current = current || namesHead(r.Body, evaluatedMarker, p.HeadOID)
		}
		if !current {
			out = append(out, b.Name)
		}
	}
	return out
}

// botFindings are the findings listed by each bot's newest approval of the head (rule 8).
func botFindings(p *PR, bots []ReviewBot) []int {
	var all []int
	for _, b := range bots {
		var latest *prstatus.Review
		for _, r := range botReviews(p, b) {
			if r.State == prstatus.ReviewApproved && namesHead(r.Body, evaluatedMarker, p.HeadOID) &&
				(latest == nil || !r.SubmittedAt.Before(latest.SubmittedAt)) {
				latest = &r
			}
		}
		if latest != nil {
			all = append(all, findings(latest.Body)...)
		}
	}
	return numbersOf(all)
}

// unnamed are the findings no fix plan names.
func unnamed(found []int, plans []prstatus.Comment) []int {
	named := map[int]bool{}
	for _, c := range plans {
		for _, n := range namedFindings(c.Body) {
			named[n] = true
		}
	}
	var out []int
	for _, n := range found {
		if !named[n] {
			out = append(out, n)
		}
	}
	return out
}

func unresolvedThreads(p *PR) []prstatus.Thread {
	var out []prstatus.Thread
	for _, t := range p.Threads {
		if !t.IsResolved {
			out = append(out, t)
		}
	}
	return out
}

// unanswered counts the threads whose first comment has no reply, opened by someone rule 9
// listens to (Config.countsThread). A thread that vanished between the reads (TotalComments 0) is
// not counted.
func unanswered(threads []prstatus.Thread, cfg Config) int {
	n := 0
	for _, t := range threads {
		if t.TotalComments == 1 && cfg.countsThread(t) {
			n++
		}
	}
	return n
}

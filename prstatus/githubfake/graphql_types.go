package githubfake

import (
	"maps"
	"strings"
	"time"
)

// newResolvers maps each GraphQL object type the fake models to its resolver.
func newResolvers() map[string]typeResolver {
	m := map[string]typeResolver{
		"Query":                    resolveQuery,
		"Mutation":                 resolveMutation,
		"Repository":               resolveRepository,
		"User":                     resolveAccount,
		"Bot":                      resolveAccount,
		"Mannequin":                resolveAccount,
		"Team":                     resolveTeam,
		"PullRequest":              resolvePullRequest,
		"PullRequestCommit":        resolvePRCommit,
		"Commit":                   resolveCommit,
		"ReviewRequest":            resolveReviewRequest,
		"PullRequestReview":        resolveReview,
		"PullRequestReviewThread":  resolveThread,
		"PullRequestReviewComment": resolveComment,
		"StatusCheckRollup":        resolveRollup,
		"CheckRun":                 resolveCheckRun,
		"CheckSuite":               resolveCheckSuite,
		"WorkflowRun":              resolveWorkflowRun,
		"Workflow":                 resolveWorkflow,
		"StatusContext":            resolveStatusContext,
	}
	maps.Copy(m, conversationResolvers())
	return m
}

// Values with no model struct of their own.
type (
	prCommit   struct{ c *Commit }
	rollup     struct{ c *Commit }
	checkSuite struct{ cr *CheckRun }
	workflow   struct{ run *WorkflowRun }
)

// typeName is the concrete GraphQL type of a resolved value (for interfaces, unions and
// __typename).
func typeName(v any) string {
	switch v := v.(type) {
	case *PullRequest:
		return "PullRequest"
	case *Repository:
		return "Repository"
	case *account:
		return string(v.Type)
	case *teamAccount:
		return "Team"
	case *Thread:
		return "PullRequestReviewThread"
	case *ReviewComment:
		return "PullRequestReviewComment"
	case *Review:
		return "PullRequestReview"
	case *ReviewRequest:
		return "ReviewRequest"
	case prCommit:
		return "PullRequestCommit"
	case *Commit:
		return "Commit"
	case rollup:
		return "StatusCheckRollup"
	case *CheckRun:
		return "CheckRun"
	case checkSuite:
		return "CheckSuite"
	case *WorkflowRun:
		return "WorkflowRun"
	case workflow:
		return "Workflow"
	case *StatusContext:
		return "StatusContext"
	case *staticObject:
		return v.typ
	case *connPage:
		return v.typ
	case edge:
		return v.typ
	}
	return conversationTypeName(v)
}

// actor resolves an Actor field: the registered account, or null for nobody.
func (x *execution) actor(a Actor) any {
	if a.zero() {
		return nil
	}
	return x.f.accountLocked(a)
}

// timeOrNil turns a zero time into null.
func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func stringOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func intOrNil(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// association is an author's relation to the repository as GitHub reports it: what WithAssociation
// set for the login, else NONE for a bot (an app is no member of anything) and MEMBER for a person.
func (f *Fake) association(a Actor) string {
	if as, ok := f.associations[strings.ToLower(a.Login)]; ok {
		return as
	}
	if a.IsBot() {
		return "NONE"
	}
	return "MEMBER"
}

func (x *execution) isViewer(a Actor) bool {
	return a.Type == x.f.viewer.Type && strings.EqualFold(a.Login, x.f.viewer.Login)
}

func toAny[T any](items []T) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

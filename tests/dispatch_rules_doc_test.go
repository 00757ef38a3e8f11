package tests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
)

// docRules are the rule labels of docs/dispatch.md's rule table ("## Rules"), each once, in the
// order the table first gives them.
func docRules(t *testing.T, doc string) []string {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Rules\n")
	require.True(t, ok, "docs/dispatch.md has a Rules section")
	cells, ok := firstCells(section, "| rule | when | then |")
	require.True(t, ok, "the Rules section has the rule table")
	var rules []string
	for _, r := range cells {
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return rules
}

// docs/dispatch.md numbers the rules as the code does (and --json's rule): every rule the
// dispatcher decides by has a row, no row names a rule the code lacks, and the numbered rules
// come in the order they are applied.
func TestTheDispatchDocNumbersTheRulesAsTheCodeDoes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "dispatch.md"))
	require.NoError(t, err)
	got := docRules(t, string(raw))
	code := []dispatch.Rule{dispatch.RuleWIP, dispatch.RuleSkip, dispatch.RuleChanges, dispatch.RuleConflict,
		dispatch.RuleCIFailed, dispatch.RuleBotMissing, dispatch.RuleChecksPending, dispatch.RuleSelfReview,
		dispatch.RuleBotFindings, dispatch.RuleThreads, dispatch.RuleHandoff, dispatch.RuleNewIssue}
	var want []string
	for _, r := range code {
		want = append(want, string(r))
	}
	assert.ElementsMatch(t, want, got, "the rule table's rules are the code's")
	numbered := slices.DeleteFunc(slices.Clone(got), func(r string) bool { return r == string(dispatch.RuleSkip) })
	wantNumbered := slices.DeleteFunc(slices.Clone(want), func(r string) bool { return r == string(dispatch.RuleSkip) })
	assert.Equal(t, wantNumbered, numbered, "the numbered rules in the order they apply")
}

func TestTheDispatchRuleCheckReadsTheTable(t *testing.T) {
	doc := "x\n## Rules\n\ntext\n\n| rule | when | then |\n|---|---|---|\n| skip | a | b |\n| 0 | c | d |\n| 0 | e | f |\n| 2 | g | h |\n\nafter | 9 |\n"
	assert.Equal(t, []string{"skip", "0", "2"}, docRules(t, doc))
}

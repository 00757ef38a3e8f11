package rounds

import "strings"

// Category is the concern a review comment raises. Every thread gets exactly one, from a fixed
// list, so that feedback from different rounds can be compared: the same concern coming back is
// the signal that an earlier fix treated a symptom (docs/architecture.md#memory-across-review-rounds).
type Category string

// The concern categories.
const (
	CategoryErrorHandling Category = "error-handling"
	CategoryValidation    Category = "validation"
	CategoryTypeSafety    Category = "type-safety"
	CategoryNaming        Category = "naming"
	CategoryPerformance   Category = "performance"
	CategoryTesting       Category = "testing"
	CategorySecurity      Category = "security"
	CategoryDocumentation Category = "documentation"
	CategoryStyle         Category = "style"
	CategoryArchitecture  Category = "architecture"
	CategoryOther         Category = "other"
)

// Categories returns the fixed list of categories, other last.
func Categories() []Category {
	return []Category{
		CategoryErrorHandling, CategoryValidation, CategoryTypeSafety, CategoryNaming, CategoryPerformance,
		CategoryTesting, CategorySecurity, CategoryDocumentation, CategoryStyle, CategoryArchitecture,
		CategoryOther,
	}
}

// ParseCategory reads a category as spelled in a reply marker. Anything not on the list is
// rejected: a marker is written by the PR's side, but an older or hand-edited one may say anything.
func ParseCategory(s string) (Category, bool) {
	c := Category(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := tieRank[c]; ok || c == CategoryOther {
		return c, true
	}
	return "", false
}

// tieRankOrder breaks a tie between two categories that score the same: the concern that costs
// more when it is missed wins (a security remark that also mentions naming is a security remark).
var tieRankOrder = [...]Category{
	CategorySecurity, CategoryErrorHandling, CategoryValidation, CategoryTypeSafety, CategoryPerformance,
	CategoryTesting, CategoryArchitecture, CategoryNaming, CategoryDocumentation, CategoryStyle,
}

// tieRank is each category's index in tieRankOrder (other has none).
var tieRank = func() map[Category]int {
	m := make(map[Category]int, len(tieRankOrder))
	for i, c := range tieRankOrder {
		m[c] = i
	}
	return m
}()

const (
	// categoryScanLimit bounds the text read per comment: the concern is stated up front, and a
	// 65 KB comment must cost no more than a short one.
	categoryScanLimit = 4096
	// minCategoryScore is the evidence needed to leave other: one strong phrase, two weak words,
	// or the path's hint.
	minCategoryScore = 2
	// pathHintScore is what a test or documentation path adds when the text is ambiguous: enough
	// to decide a comment whose text says nothing or leans two ways.
	pathHintScore = 2
	// perRuleCap counts at most this many distinct hits of one rule, so repeating a word does not
	// drown out everything else.
	perRuleCap = 2
)

// Categorize assigns a review comment one concern category from its text and the file it is on.
//
// It is the cheap, deterministic floor: weighted phrase rules matched word by word, each rule
// counting at most two distinct phrases, ties going to the concern that costs more when missed.
// When the text is ambiguous (it holds no strong phrase) the path leans: under test/ or ending
// _test.go towards testing, a README or a .md file towards documentation. Too little evidence is
// other. Code blocks, HTML comments (bots hide metadata there) and links are ignored: their words
// are not the reviewer's concern. Only the first 4 KB are read.
//
// The server refines the category by MCP sampling when the client offers it (wired elsewhere) and
// records the result in its reply marker, which PriorResolutions prefers; this answer stands when
// sampling is unavailable, and in every test.
func Categorize(body, path string) Category {
	text := normalizeForCategory(body)
	var scores [len(tieRankOrder)]int
	// Each rule counts its distinct phrases and snippets, at most perRuleCap of them.
	found := make([]int, len(categoryRules))
	index := categoryPhrases()
	seen := make([]bool, len(index.phrases))
	index.hits(tokenize(text), func(id int) {
		if !seen[id] {
			seen[id] = true
			found[index.phrases[id].rule]++
		}
	})
	for r := range categoryRules {
		rule := &categoryRules[r]
		for _, lit := range rule.literals {
			if found[r] < perRuleCap && strings.Contains(text, lit) {
				found[r]++
			}
		}
		if c, ok := tieRank[rule.category]; ok {
			scores[c] += rule.weight * min(found[r], perRuleCap)
		}
	}
	best, bestScore := top(&scores)
	// The path speaks only when the text is ambiguous: it holds no strong phrase.
	if hint := pathCategory(path); hint != "" && bestScore < strong {
		scores[tieRank[hint]] += pathHintScore
		best, bestScore = top(&scores)
	}
	if bestScore < minCategoryScore {
		return CategoryOther
	}
	return best
}

// top returns the highest-scoring category. Scores are indexed in tie order, so the first highest
// wins a tie.
func top(scores *[len(tieRankOrder)]int) (best Category, score int) {
	best = CategoryOther
	for i, s := range scores {
		if s > score {
			best, score = tieRankOrder[i], s
		}
	}
	return best, score
}

// normalizeForCategory lower-cases the first categoryScanLimit bytes of a comment without its
// code blocks, HTML comments and links.
func normalizeForCategory(body string) string {
	if len(body) > categoryScanLimit {
		body = body[:categoryScanLimit]
	}
	body = stripSpans(body, "```", "```", " ")
	body = stripSpans(body, "<!--", "-->", " ")
	return strings.ToLower(stripURLs(body))
}

// pathCategory is the category a file's location suggests, or "" when it suggests none.
func pathCategory(path string) Category {
	if path == "" {
		return ""
	}
	p := "/" + strings.ToLower(strings.ReplaceAll(path, `\`, "/"))
	base := p[strings.LastIndex(p, "/")+1:]
	switch {
	case strings.Contains(p, "/test/"), strings.Contains(p, "/tests/"), strings.Contains(p, "/testdata/"),
		strings.Contains(p, "/__tests__/"), strings.Contains(p, "/spec/"),
		strings.HasSuffix(base, "_test.go"), strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.Contains(base, ".test."), strings.Contains(base, ".spec."), strings.HasSuffix(base, "_spec.rb"):
		return CategoryTesting
	case strings.HasSuffix(base, ".md"), strings.HasSuffix(base, ".rst"), strings.HasSuffix(base, ".adoc"),
		strings.HasPrefix(base, "readme"), strings.HasPrefix(base, "changelog"), strings.Contains(p, "/docs/"):
		return CategoryDocumentation
	}
	return ""
}

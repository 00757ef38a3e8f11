package dispatch

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The texts workers and review bots leave on GitHub, which the rules read. The templates teach
// the workers to write them.
const (
	// fixPlanMarker opens a worker's fix plan: "Fix plan for <sha>".
	fixPlanMarker = "Fix plan for"
	// selfReviewMarker opens a self-review: "Self-review against <sha>".
	selfReviewMarker = "Self-review against"
	// evaluatedMarker is in a review bot's review: "Evaluated against <short sha>".
	evaluatedMarker = "Evaluated against"
)

// minSHA is the shortest commit prefix a marker may name.
const minSHA = 7

var (
	// botSentinel is a review bot's signature in a review body: <!-- review-bot:NAME -->.
	botSentinel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<!--\s*review-bot:\s*([A-Za-z0-9._-]+)\s*-->`) })
	// findingLine is one finding in a review bot's review: "Finding #3".
	findingLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bfinding\s+#(\d{1,6})\b`) })
	// findingRef is a finding named in a fix plan: "#3" (as in "Finding #3" or "#3, #4").
	findingRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#(\d{1,6})\b`) })
	// assessmentWarn and assessmentClean are a self-review's verdict.
	assessmentWarn  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)assessment:\s*(\*\*)?\s*⚠`) })
	assessmentClean = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)assessment:\s*(\*\*)?\s*✅\s*(\*\*)?\s*clean`) })
)

// namesHead reports whether text holds marker followed by a commit id of at least seven hex
// digits that begins the head's (case-insensitive): "Fix plan for 1a2b3c4".
func namesHead(text, marker, headOID string) bool {
	if len(headOID) < minSHA {
		return false
	}
	lower, m, head := strings.ToLower(text), strings.ToLower(marker), strings.ToLower(headOID)
	for i := 0; ; {
		j := strings.Index(lower[i:], m)
		if j < 0 {
			return false
		}
		i += j + len(m)
		rest := strings.TrimLeft(lower[i:], " \t`*:")
		n := 0
		for n < len(rest) && n < 40 && isHex(rest[n]) {
			n++
		}
		if n >= minSHA && strings.HasPrefix(head, rest[:n]) {
			return true
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// botNames returns the review bots a review body signs for (lowercase).
func botNames(body string) []string {
	var out []string
	for _, m := range botSentinel().FindAllStringSubmatch(body, -1) {
		out = append(out, strings.ToLower(m[1]))
	}
	return out
}

// findings returns the finding numbers a review lists, ascending, without duplicates.
func findings(body string) []int {
	return numbers(findingLine(), body)
}

// namedFindings returns the finding numbers a fix plan names.
func namedFindings(body string) []int {
	return numbers(findingRef(), body)
}

func numbers(re *regexp.Regexp, text string) []int {
	var out []int
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	return numbersOf(out)
}

// numbersOf sorts ns and drops duplicates.
func numbersOf(ns []int) []int {
	slices.Sort(ns)
	return slices.Compact(ns)
}

// assessment is a self-review's verdict.
type assessment int

const (
	assessmentNone  assessment = iota // no verdict line
	assessmentFound                   // "Assessment: ⚠️": findings to fix
	assessmentOK                      // "Assessment: ✅ Clean"
)

func assess(body string) assessment {
	switch {
	case assessmentWarn().MatchString(body): // findings win over a clean line in the same text
		return assessmentFound
	case assessmentClean().MatchString(body):
		return assessmentOK
	}
	return assessmentNone
}

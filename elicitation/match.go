package elicitation

import (
	"strconv"
	"strings"
	"unicode"
)

// synonyms are plain words users type for a choice. They match only the whole answer (after
// filler words are dropped), never a part of it: "don't merge" must not match "merge".
var synonyms = map[Value][]string{
	Stop:                {"stop", "quit", "exit", "end", "stop it", "stop watching", "cancel monitoring", "stop the monitor"},
	Resume:              {"resume", "keep monitoring", "keep watching", "continue monitoring", "carry on", "go back to monitoring", "back to monitoring"},
	HandleMyself:        {"myself", "i'll handle it", "i will handle it", "i'll do it", "i will do it", "leave it to me", "handle it myself", "manual", "manually"},
	Merge:               {"merge", "merge it", "merge the pr", "merge now", "merge the pull request"},
	AutoMerge:           {"auto merge", "automerge", "auto merge it", "merge automatically", "merge when ready", "merge when green", "merge when the checks pass", "merge it when the checks pass"},
	WaitForApprover:     {"wait", "wait for another approver", "wait for approval", "wait for another approval"},
	Skip:                {"skip", "skip it", "next", "pass", "skip this one"},
	Done:                {"done", "finished", "that's all", "that is all", "enough"},
	Address:             {"address", "address it", "fix", "fix it", "do it", "do what the reviewer asks"},
	ApplyRecommendation: {"apply", "apply it", "apply the recommendation", "go with the recommendation", "follow the recommendation"},
	AddressAll:          {"all", "address all", "fix all", "fix them all", "address them all", "all of them"},
	ExplainAll:          {"explain", "explain all", "explain them", "explain each", "explain each one"},
	AddressSpecific:     {"pick", "pick one", "choose one", "a specific one"},
	Continue:            {"continue", "next comment", "address the next", "the next one"},
	DoneHandling:        {"done", "done handling", "finished", "i'm done", "i am done"},
	ResolveThread:       {"resolve", "resolve it", "resolve the thread"},
	RefineAgain:         {"refine again", "try again", "again", "retry"},
	TreatAsAnswered:     {"answered", "it's answered", "it is answered", "already answered"},
	ApplyFix:            {"apply the fix", "apply fix", "fix it", "apply the suggested fix"},
	RerunFailed:         {"rerun", "re-run", "rerun failed", "re-run failed", "rerun the failed jobs", "re-run the failed jobs", "retry ci", "rerun ci", "re-run ci"},
	WaitForLower:        {"wait for the lower one", "wait for the lower pr", "wait for it to merge", "merge the lower one first"},
	WaitForBase:         {"wait for the base", "wait for base", "wait for the base branch", "wait until the base is green", "wait for it to go green"},
	LookAnyway:          {"look anyway", "look at it anyway", "investigate anyway", "investigate", "look into it"},
	RerunAll:            {"new build", "run a new build", "rerun all", "re-run all", "rebuild"},
	Rebase:              {"rebase", "rebase it", "resolve the conflict", "resolve conflicts", "fix the conflict"},
	RequestReReview:     {"remind", "remind them", "ask again", "request review", "re-request review", "rerequest review"},
	SkipReminder:        {"don't remind", "do not remind", "no reminder", "skip reminder"},
	Retry:               {"retry", "try again", "again"},
	BackToTask:          {"back to the task", "go back", "back"},
	TreatAsPushed:       {"pushed", "i pushed", "it's pushed", "treat as pushed"},
	TreatAsAddressed:    {"addressed", "it's addressed", "treat as addressed"},
	TreatAsReplied:      {"replied", "i replied", "replied on github"},
	Snooze:              {"snooze", "snooze it", "later", "ask me later", "ask me again later", "remind me later", "in an hour", "ask me in an hour"},
}

// fillers are dropped from the ends of an answer before matching.
var fillers = []string{"please", "pls", "ok", "okay", "yes", "let's", "lets", "just", "go ahead and", "then", "now", "thanks", "thank you"}

var ordinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
}

// Match maps a free-text answer to one of the question's choices deterministically: the exact
// value, the label, an ordinal ("2", "#2", "option 2", "the second one", "last"), or a plain
// synonym of an offered choice. It matches the whole answer only and reports false when the
// answer is ambiguous or unrecognised; the caller then falls back to sampling or the agent.
func Match(text string, q Question) (Value, bool) {
	norm := normalize(text)
	if norm == "" {
		return "", false
	}
	for _, c := range q.Choices { // exact value or label
		if norm == normalize(string(c.Value)) || norm == normalize(c.Label) {
			return c.Value, true
		}
	}
	if n, ok := ordinal(norm, len(q.Choices)); ok {
		return q.Choices[n-1].Value, true
	}
	stripped := stripFillers(norm)
	if stripped == "" {
		return "", false
	}
	if n, ok := ordinal(stripped, len(q.Choices)); ok {
		return q.Choices[n-1].Value, true
	}
	var found []Value
	for _, c := range q.Choices {
		if stripped == normalize(string(c.Value)) || stripped == normalize(c.Label) {
			return c.Value, true
		}
		for _, s := range synonyms[c.Value] {
			if stripped == normalize(s) {
				found = append(found, c.Value)
				break
			}
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}

// normalize lowercases, turns separators into spaces, drops other punctuation (keeping
// apostrophes and '#'), and collapses whitespace.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '_' || r == '-' || r == ':' || r == '/' || unicode.IsSpace(r):
			b.WriteRune(' ')
		case r == '\'' || r == '’':
			b.WriteRune('\'')
		case r == '#' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func stripFillers(s string) string {
	for changed := true; changed; {
		changed = false
		for _, f := range fillers {
			if s == f {
				return ""
			}
			if t, ok := strings.CutPrefix(s, f+" "); ok {
				s, changed = t, true
			}
			if t, ok := strings.CutSuffix(s, " "+f); ok {
				s, changed = t, true
			}
		}
	}
	return s
}

// ordinal reads "2", "#2", "option 2", "choice 2", "number 2", "the second", "the second one",
// "last" as a 1-based index into n choices.
func ordinal(s string, n int) (int, bool) {
	s = strings.TrimPrefix(s, "the ")
	s = strings.TrimSuffix(s, " one")
	s = strings.TrimSuffix(s, " option")
	for _, p := range []string{"option ", "choice ", "number ", "no ", "#"} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimPrefix(s, "#")
	if s == "last" {
		return n, n > 0
	}
	i, err := strconv.Atoi(s)
	if err != nil {
		var ok bool
		if i, ok = ordinals[s]; !ok {
			return 0, false
		}
	}
	return i, i >= 1 && i <= n
}

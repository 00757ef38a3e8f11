package rounds

import (
	"fmt"
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// DefaultLookback is how many review rounds a cluster analysis looks back over; MaxLookback caps
// what a caller may ask for. Older rounds are ignored, so a PR with fifteen rounds costs no more
// than one with three and its brief is no larger.
const (
	DefaultLookback = 3
	MaxLookback     = 10
)

// Caps on a cluster brief's lists (with the string bounds in priors.go, its hard size ceiling).
const (
	maxBriefThreads = 20
	maxBriefPrior   = 20
	maxBriefFiles   = 20
	// maxPriorsConsidered bounds the prior resolutions grouped, newest first, however many
	// threads the looked-at rounds answered.
	maxPriorsConsidered = 100
)

// MaxClusterBriefBytes is the hard ceiling on a brief's JSON encoding, whatever the PR holds:
// every list at its cap, every string at its bound, every character one that JSON escapes into
// six bytes. Real briefs are a few kilobytes.
const MaxClusterBriefBytes = maxBriefThreads*(6*(2*idRunes+pathRunes)+160) +
	maxBriefPrior*(6*(4*idRunes+pathRunes+excerptRunes)+260) +
	maxBriefFiles*(6*pathRunes+4) + MaxLookback*(6*idRunes+4) + 6*(pathRunes+1) + 1024

// ClusterResult is the outcome of Cluster. Brief is nil unless a cluster formed; Reason always
// says what happened and why.
type ClusterResult struct {
	Brief *ClusterBrief `json:"brief,omitempty"`
	// Gate is true when the analysis ran: 3+ new threads, or prior resolutions in the looked-at
	// rounds and reviewer feedback newer than the newest of them.
	Gate bool `json:"gate"`
	// Overlap is true when some new thread shares a category, a file or a directory subtree with
	// another new thread (3+ case) or with a prior resolution.
	Overlap bool   `json:"overlap"`
	Reason  string `json:"reason"`
}

// ThemeKind says what a cluster's threads have in common.
type ThemeKind string

// Theme kinds, strongest first.
const (
	ThemeCategory  ThemeKind = "category"
	ThemeFile      ThemeKind = "file"
	ThemeDirectory ThemeKind = "directory"
)

// ClusterBrief is what a refine or address task carries when new feedback clusters with itself or
// with earlier rounds. Every list and string is bounded, so the brief has a hard size ceiling.
type ClusterBrief struct {
	// Theme is the shared category, file, or directory (with a trailing slash).
	Theme     string    `json:"theme"`
	ThemeKind ThemeKind `json:"theme_kind"`
	// Files are the files of the threads below, sorted.
	Files      []string        `json:"files"`
	NewThreads []ClusterThread `json:"new_threads"`
	// Prior are earlier resolutions in the cluster, oldest reply first (the newest ones when
	// there are more than fit).
	Prior []PriorResolution `json:"prior,omitempty"`
	// Rounds are the round ids looked at, oldest first.
	Rounds      []string `json:"rounds,omitempty"`
	Instruction string   `json:"instruction"`
}

// ClusterThread is a new thread in a cluster.
type ClusterThread struct {
	ID       string   `json:"id"`
	Reviewer string   `json:"reviewer"`
	Path     string   `json:"path,omitempty"`
	Line     int      `json:"line,omitempty"`
	Category Category `json:"category"`
}

// The instructions are fixed text: nothing from GitHub is spliced into them.
const (
	instructionWithPrior = "The new threads share a theme with fixes made in earlier rounds (prior). Before changing " +
		"code, judge those fixes: a band-aid (it treated a symptom: redo it holistically, together with the new " +
		"feedback), correct but incomplete (keep it, and look for the same pattern in code no reviewer flagged), or " +
		"sound and independent (address the new threads on their own). State which, and why, in your findings."
	instructionNewOnly = "The new threads share a theme. Before fixing them one by one, judge whether they have one " +
		"root cause (fix it once, and look for the same pattern in code no reviewer flagged) or are independent " +
		"(address each on its own). State which, and why, in your findings."
)

// Cluster decides whether the new threads form a cluster, with one another or with what
// prmonitor resolved in the last lookback rounds (docs/architecture.md#memory-across-review-rounds), and if so builds the brief. It is
// pure and cheap when nothing clusters: the gate and the overlap check come first, and only the
// looked-at rounds are ever categorised. lookback ≤ 0 means DefaultLookback. Unknown thread ids
// are ignored; the order of newThreadIDs does not matter.
func Cluster(f *prstatus.Facts, newThreadIDs []string, lookback int) ClusterResult {
	if f == nil {
		return ClusterResult{Reason: "no facts to cluster"}
	}
	if lookback <= 0 {
		lookback = DefaultLookback
	}
	lookback = min(lookback, MaxLookback)

	news := newThreads(f, newThreadIDs)
	if len(news) == 0 {
		return ClusterResult{Reason: "no new threads to cluster"}
	}
	skip := make(map[string]bool, len(news))
	for _, t := range news {
		skip[t.ID] = true
	}
	refs, rounds, total := recentRounds(scanPriors(f, skip), lookback)
	window := roundsWindow(len(rounds), total, lookback)

	var newestPrior time.Time
	for _, r := range refs {
		newestPrior = maxTime(newestPrior, r.at)
	}
	feedback := newestFeedback(news, f.Author, f.Viewer)
	threads := text.Count(len(news), "new thread", "new threads")
	switch {
	case len(news) >= 3:
	case len(refs) == 0:
		return ClusterResult{Reason: threads + " and no prior resolutions in " + window + ": nothing to cluster"}
	case !feedback.After(newestPrior):
		return ClusterResult{Reason: fmt.Sprintf("%s, and no feedback newer than the newest prior reply (%s)",
			threads, newestPrior.UTC().Format(time.RFC3339))}
	}

	if len(refs) > maxPriorsConsidered {
		refs = refs[len(refs)-maxPriorsConsidered:]
	}
	items := clusterItems(f, news, refs)
	g, ok := bestGroup(items, len(news) >= 3)
	if !ok {
		with := "with " + text.Count(len(refs), "prior resolution", "prior resolutions") + " in " + window
		if len(news) >= 3 {
			with = "with each other or " + with
		}
		return ClusterResult{Gate: true, Reason: fmt.Sprintf("unrelated feedback: %s %s no category, file or directory %s",
			threads, text.Plural(len(news), "shares", "share"), with)}
	}
	brief := buildBrief(g, items, rounds)
	reason := fmt.Sprintf("cluster on %s %q: %s and %s from %s", brief.ThemeKind, brief.Theme,
		text.Count(g.news, "new thread", "new threads"),
		text.Count(len(g.members)-g.news, "prior resolution", "prior resolutions"), window)
	if out := len(news) - g.news; out > 0 {
		reason += fmt.Sprintf("; %d of %s outside this cluster", out, threads)
	}
	return ClusterResult{Brief: brief, Gate: true, Overlap: true, Reason: reason}
}

// newThreads looks the ids up among the PR's threads, without duplicates, in thread order.
func newThreads(f *prstatus.Facts, ids []string) []*prstatus.ThreadFact {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" {
			want[id] = true
		}
	}
	var out []*prstatus.ThreadFact
	for _, list := range [][]prstatus.ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting, f.Threads.Resolved} {
		for i := range list {
			if want[list[i].ID] {
				delete(want, list[i].ID)
				out = append(out, &list[i])
			}
		}
	}
	slices.SortFunc(out, func(a, b *prstatus.ThreadFact) int { return prstatus.CompareThreads(*a, *b) })
	return out
}

// newestFeedback is the time of the newest comment in the new threads written by someone other
// than the PR's side.
func newestFeedback(news []*prstatus.ThreadFact, author, viewer string) time.Time {
	var at time.Time
	for _, t := range news {
		for _, c := range t.Comments {
			if !prstatus.IsUs(c.Author.Login, author, viewer) {
				at = maxTime(at, c.CreatedAt)
			}
		}
	}
	return at
}

func roundsWindow(looked, total, lookback int) string {
	s := "the last " + text.Count(lookback, "round", "rounds")
	if total > looked {
		s += fmt.Sprintf(" (%d older not looked at)", total-looked)
	}
	return s
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

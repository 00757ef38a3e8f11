package rounds

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// clusterItem is a new thread or a prior resolution taking part in grouping.
type clusterItem struct {
	thread   *prstatus.ThreadFact // a new thread; nil for a prior resolution
	prior    priorRef
	category Category
	path     string
}

// clusterItems lists the new threads (in thread order), then the prior resolutions (oldest reply
// first), each with its category. A new thread that prmonitor answered before keeps the category
// its marker recorded.
func clusterItems(f *prstatus.Facts, news []*prstatus.ThreadFact, refs []priorRef) []clusterItem {
	items := make([]clusterItem, 0, len(news)+len(refs))
	for _, t := range news {
		m, _, _ := newestMarker(t, f.Author, f.Viewer)
		items = append(items, clusterItem{thread: t, category: categoryOf(t, m), path: t.Path})
	}
	for _, r := range refs {
		items = append(items, clusterItem{prior: r, category: categoryOf(r.t, r.marker), path: r.t.Path})
	}
	return items
}

// group is the items sharing one category, one file, or one directory subtree.
type group struct {
	kind    ThemeKind
	key     string
	members []int // indices into the items, ascending: new threads first
	news    int
}

// bestGroup finds the groups the overlap check allows and picks the largest. A group needs a new
// thread and a prior resolution, or (newNew: 3+ new threads) two new threads. A directory subtree
// is the directory of one item's file: the items at or below it share it (two sibling directories
// do not, and the repository root is no subtree). Other is no shared concern.
//
// Ties go to the group with more prior resolutions, then to category over file over directory,
// then to the deeper directory, then by name, so the choice never depends on input order.
func bestGroup(items []clusterItem, newNew bool) (group, bool) {
	groups := map[ThemeKind]map[string][]int{ThemeCategory: {}, ThemeFile: {}, ThemeDirectory: {}}
	dirs := map[string]bool{}
	for i, it := range items {
		if it.category != "" && it.category != CategoryOther {
			groups[ThemeCategory][string(it.category)] = append(groups[ThemeCategory][string(it.category)], i)
		}
		if it.path != "" {
			groups[ThemeFile][it.path] = append(groups[ThemeFile][it.path], i)
			if d := path.Dir(it.path); d != "." && d != "/" && d != "" {
				dirs[d] = true
			}
		}
	}
	for d := range dirs {
		for i, it := range items {
			if strings.HasPrefix(it.path, d+"/") {
				groups[ThemeDirectory][d] = append(groups[ThemeDirectory][d], i)
			}
		}
	}

	var best group
	found := false
	for kind, byKey := range groups {
		for key, members := range byKey {
			g := group{kind: kind, key: key, members: members}
			for _, i := range members {
				if items[i].thread != nil {
					g.news++
				}
			}
			priors := len(members) - g.news
			if g.news == 0 || (priors == 0 && !(newNew && g.news >= 2)) {
				continue
			}
			if !found || compareGroups(g, best) < 0 {
				best, found = g, true
			}
		}
	}
	return best, found
}

var themeRank = map[ThemeKind]int{ThemeCategory: 0, ThemeFile: 1, ThemeDirectory: 2}

// compareGroups orders the better group first.
func compareGroups(a, b group) int {
	return cmp.Or(
		cmp.Compare(len(b.members), len(a.members)),
		cmp.Compare(len(b.members)-b.news, len(a.members)-a.news),
		cmp.Compare(themeRank[a.kind], themeRank[b.kind]),
		cmp.Compare(strings.Count(b.key, "/"), strings.Count(a.key, "/")),
		strings.Compare(a.key, b.key),
	)
}

// buildBrief renders a group within the brief's bounds: the first new threads, the newest prior
// resolutions, their files.
func buildBrief(g group, items []clusterItem, rounds []string) *ClusterBrief {
	b := &ClusterBrief{
		Theme:       text.ClipRunes(g.key, pathRunes),
		ThemeKind:   g.kind,
		NewThreads:  []ClusterThread{},
		Rounds:      rounds,
		Instruction: instructionNewOnly,
	}
	if g.kind == ThemeDirectory {
		b.Theme += "/"
	}
	var priors []clusterItem
	for _, i := range g.members {
		it := items[i]
		if it.thread == nil {
			priors = append(priors, it)
			continue
		}
		if len(b.NewThreads) < maxBriefThreads {
			b.NewThreads = append(b.NewThreads, ClusterThread{
				ID:       text.ClipRunes(it.thread.ID, idRunes),
				Reviewer: text.ClipRunes(it.thread.Reviewer, idRunes),
				Path:     text.ClipRunes(it.thread.Path, pathRunes),
				Line:     it.thread.Line,
				Category: it.category,
			})
		}
	}
	// Priors are oldest reply first: the newest ones are kept.
	for _, it := range priors[max(0, len(priors)-maxBriefPrior):] {
		b.Prior = append(b.Prior, it.prior.resolution(it.category))
	}
	if len(b.Prior) > 0 {
		b.Instruction = instructionWithPrior
	}
	files := make([]string, 0, len(b.NewThreads)+len(b.Prior))
	for _, t := range b.NewThreads {
		files = append(files, t.Path)
	}
	for _, p := range b.Prior {
		files = append(files, p.Path)
	}
	// The files, sorted, without duplicates and without the empty path of a file-less thread.
	slices.Sort(files)
	files = slices.DeleteFunc(slices.Compact(files), func(p string) bool { return p == "" })
	b.Files = files[:min(len(files), maxBriefFiles)]
	if len(rounds) > 0 {
		b.Rounds = make([]string, len(rounds))
		for i, r := range rounds {
			b.Rounds[i] = text.ClipRunes(r, idRunes)
		}
	}
	return b
}

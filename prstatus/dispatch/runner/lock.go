package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
)

// confirmLocks re-reads, after the writes, the label events of every pull request the run just
// locked, and keeps a SPAWN line only where this run holds the lock: the first time the wip label
// was applied since it was last removed is an event this run's read had not seen, by the run's own
// account (the token's user). Another dispatcher that labelled the pull request between this
// run's read and its write holds it instead: this run prints no SPAWN for it, and says why.
// (Two runs with the same token cannot be told apart by GitHub's events: run one at a time per
// identity, as the scheduled workflow does.)
func confirmLocks(ctx context.Context, src Source, snap *dispatch.Snapshot, cfg dispatch.Config, res *Result) error {
	var locked []int
	for _, s := range res.Plan.Spawns {
		if s.Type != dispatch.SpawnImpl {
			locked = append(locked, s.Number)
		}
	}
	if len(locked) == 0 {
		return nil
	}
	events, err := src.LockEvents(ctx, snap, locked, &res.GitHub.RepoCost)
	if err != nil {
		return fmt.Errorf("%w (the writes landed; no SPAWN line is printed without the lock confirmed)", err)
	}
	seen := map[string]bool{}
	for _, pr := range snap.PRs {
		for _, e := range pr.LabelEvents {
			seen[e.ID] = true
		}
	}
	kept := res.Plan.Spawns[:0]
	for _, s := range res.Plan.Spawns {
		if s.Type == dispatch.SpawnImpl {
			kept = append(kept, s)
			continue
		}
		if owner, ok := lockOwner(events[s.Number], cfg.Labels.WIP, seen); ok && sameLogin(owner, snap.Viewer) {
			kept = append(kept, s)
			continue
		}
		res.Plan.Lose(s.Number, "another run applied the "+cfg.Labels.WIP+" label first and holds the pull request; this run leaves it")
	}
	res.Plan.Spawns = kept
	return nil
}

// lockOwner is who applied label first since it was last removed, among events this run's read
// had not seen: ok is false when no such event exists (someone else's label was already there).
func lockOwner(events []dispatch.LabelEvent, label string, seen map[string]bool) (string, bool) {
	start := 0
	for i, e := range events {
		if e.Removed && strings.EqualFold(e.Label, label) {
			start = i + 1
		}
	}
	for _, e := range events[start:] {
		if !e.Removed && strings.EqualFold(e.Label, label) {
			return e.Actor, !seen[e.ID]
		}
	}
	return "", false
}

// sameLogin compares logins in either of GitHub's forms, case-insensitively.
func sameLogin(a, b string) bool {
	a, b = strings.TrimSuffix(strings.ToLower(a), "[bot]"), strings.TrimSuffix(strings.ToLower(b), "[bot]")
	return a != "" && a == b
}

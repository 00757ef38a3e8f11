package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// statusColumn is one column of the monitors table: its heading, its width (at most max; a column
// that shares the room, flex, never less than min), and its cell for a monitor.
type statusColumn struct {
	head     string
	max, min int
	flex     bool
	cell     func(m statusMonitor, now time.Time) string
}

// statusColumns in the order shown. The flexible columns share the room the others leave
// (growStages); when even their minimums do not fit, columns go (dropOrder).
var statusColumns = []statusColumn{
	{"PR", 34, 15, false, func(m statusMonitor, _ time.Time) string { return m.PR }},
	{"STATE", 0, 16, true, func(m statusMonitor, _ time.Time) string { return m.State }},
	{"WAITING FOR", 0, 16, true, func(m statusMonitor, _ time.Time) string { return waitingWords(m) }},
	{"SINCE", 7, 7, false, func(m statusMonitor, now time.Time) string { return since(m.WaitingSince, now) }},
	{"LAST EVENT", 0, 24, true, func(m statusMonitor, now time.Time) string {
		if m.LastEvent == nil {
			return "-"
		}
		return clock(m.LastEvent.At, now) + " " + m.LastEvent.Summary
	}},
}

// waitingWords is what the monitor waits for, as the table says it: a monitor no server runs
// waits for one first.
func waitingWords(m statusMonitor) string {
	if m.serverless() {
		return "no server · " + m.WaitingFor
	}
	return m.WaitingFor
}

// growStages: how the flexible columns share the room, stage by stage, each up to a width (0: its
// whole content): what the monitor waits for comes first and, in a wide window, whole.
var growStages = []struct {
	head string
	upTo int
}{
	{"WAITING FOR", 28}, {"STATE", 30}, {"WAITING FOR", 48}, {"STATE", 36},
	{"WAITING FOR", 0}, {"LAST EVENT", 0}, {"STATE", 0},
}

// dropOrder: which columns go first when even their minimum widths do not fit.
var dropOrder = []string{"LAST EVENT", "STATE", "SINCE", "WAITING FOR"}

// statusGap separates the columns.
const statusGap = "  "

// defaultStatusWidth is the table's width when status prints to a pipe or a file.
const defaultStatusWidth = 160

// statusLayout is the monitors table's shape for one width: which columns are shown, how wide.
// Widths are measured in terminal cells, so titles in CJK or with emoji line up.
type statusLayout struct {
	keep   []bool
	widths []int
}

// cells are one monitor's cells, on one line each.
func statusCells(m statusMonitor, now time.Time) []string {
	out := make([]string, len(statusColumns))
	for j, c := range statusColumns {
		out[j] = sanitize.Line(c.cell(m, now))
	}
	return out
}

// layoutStatus fits the columns to width for these monitors (every one of them, so that scrolling
// through them does not move the columns).
func layoutStatus(ms []statusMonitor, now time.Time, width int) statusLayout {
	cols := statusColumns
	l := statusLayout{keep: make([]bool, len(cols)), widths: make([]int, len(cols))}
	content := make([]int, len(cols))
	for j, c := range cols {
		l.keep[j] = true
		content[j] = displayWidth(c.head)
	}
	for _, m := range ms {
		for j, cell := range statusCells(m, now) {
			content[j] = max(content[j], displayWidth(cell))
		}
	}
	for j, c := range cols {
		l.widths[j] = min(content[j], c.max)
		if c.flex {
			l.widths[j] = min(content[j], c.min)
		}
	}
	for _, g := range growStages {
		j := slices.IndexFunc(cols, func(c statusColumn) bool { return c.head == g.head })
		want := content[j]
		if g.upTo > 0 {
			want = min(want, g.upTo)
		}
		if spare := width - l.total(); spare > 0 && want > l.widths[j] {
			l.widths[j] += min(spare, want-l.widths[j])
		}
	}
	l.fit(width)
	return l
}

// total is the table's width.
func (l statusLayout) total() int {
	n, t := 0, 0
	for j := range l.widths {
		if l.keep[j] {
			t += l.widths[j]
			n++
		}
	}
	return t + len(statusGap)*max(n-1, 0)
}

// fit narrows and drops columns until the table fits width: only the PR can still be narrowed
// (the flexible columns are at their minimum when it comes to this), then columns go.
func (l statusLayout) fit(width int) {
	for drop := 0; l.total() > width; {
		widest := -1
		for j, c := range statusColumns {
			if !l.keep[j] || l.widths[j] <= c.min {
				continue
			}
			if c.head == dropOrder[0] {
				widest = j
				break
			}
			if widest < 0 || l.widths[j] > l.widths[widest] {
				widest = j
			}
		}
		if widest >= 0 {
			l.widths[widest]--
			continue
		}
		if drop == len(dropOrder) {
			return // the PR column alone: let the terminal cut it
		}
		for j, c := range statusColumns {
			if c.head == dropOrder[drop] {
				l.keep[j] = false
			}
		}
		drop++
	}
}

// line is one row of the table: each shown cell clipped and padded to its column.
func (l statusLayout) line(cells []string) string {
	var b strings.Builder
	for j, cell := range cells {
		if !l.keep[j] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(statusGap)
		}
		b.WriteString(padWidth(clipWidth(cell, l.widths[j]), l.widths[j]))
	}
	return strings.TrimRight(b.String(), " ")
}

// heading is the table's first line.
func (l statusLayout) heading() string {
	heads := make([]string, len(statusColumns))
	for j, c := range statusColumns {
		heads[j] = c.head
	}
	return l.line(heads)
}

// statusTable renders the monitors, at most rows of them (0: all), in at most width columns of
// text: a heading and one line a monitor, every cell on one line and clipped to its column.
func statusTable(ms []statusMonitor, now time.Time, width, rows int) []string {
	if rows > 0 && len(ms) > rows {
		ms = ms[:rows]
	}
	l := layoutStatus(ms, now, width)
	out := []string{l.heading()}
	for _, m := range ms {
		out = append(out, l.line(statusCells(m, now)))
	}
	return out
}

// since is how long ago t was, briefly: "45s", "12m", "3h05m", "2d4h".
func since(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := max(now.Sub(t), 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// clock is when t was, in now's time zone: the time of day, with the date when not today.
func clock(t, now time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 2 15:04")
}

// writeStatus prints one read of the state directory for a person: whether a server runs it, the
// monitors table (at most rows, 0: all), the records it could not read, and each watcher's
// budget.
func writeStatus(w io.Writer, snap statusSnapshot, width, rows int) {
	r := snap.report
	now := r.At
	fmt.Fprintln(w, serverLine(snap))
	if len(r.Monitors) > 0 {
		fmt.Fprintln(w)
		for _, l := range statusTable(r.Monitors, now, width, rows) {
			fmt.Fprintln(w, l)
		}
		if rows > 0 && len(r.Monitors) > rows {
			fmt.Fprintf(w, "… and %d more (--limit 0 shows all; --json lists all)\n", len(r.Monitors)-rows)
		}
	}
	if len(r.Unreadable) > 0 {
		fmt.Fprintln(w, "\nUnreadable (left as they are; a server sets an unusable record aside when it next reads it):")
		for _, u := range r.Unreadable {
			fmt.Fprintf(w, "  %s: %s\n", u.File, clipWidth(u.Problem, max(width-displayWidth(u.File)-4, 20)))
		}
	}
	if len(r.Budgets) > 0 {
		fmt.Fprintln(w, "\nBudget:")
		for _, b := range r.Budgets {
			fmt.Fprintf(w, "  %s\n", budgetLine(b, now))
		}
	}
}

// serverLine says whether a server runs on this directory, and what that means for the monitors
// it does not run. A server marks the directory while it runs and holds a lock on each monitor it
// runs (mcpserver/store), so a server is seen before it holds a monitor.
func serverLine(snap statusSnapshot) string {
	r := snap.report
	switch {
	case snap.missing:
		return fmt.Sprintf("Nothing is saved yet: %s does not exist (a server creates it when an agent starts its first monitor).", r.StateDir)
	case len(r.Monitors) == 0 && len(r.Servers) == 0:
		return fmt.Sprintf("No monitors saved in %s.", r.StateDir)
	case len(r.Monitors) == 0:
		return fmt.Sprintf("No monitors saved in %s. %s", r.StateDir, serversSentence(r.Servers, r.At))
	}
	waiting, active := 0, 0
	for _, m := range r.Monitors {
		if !m.Ended {
			active++
		}
		if m.serverless() {
			waiting++
		}
	}
	s := serversSentence(r.Servers, r.At)
	switch {
	case waiting == 1 && active == 1:
		s += " The monitor resumes where it was"
	case waiting == active && waiting > 1:
		s += fmt.Sprintf(" The %d monitors resume where they were", waiting)
	case waiting == 1:
		s += " 1 monitor has no server: it resumes where it was"
	case waiting > 1:
		s += fmt.Sprintf(" %d monitors have no server: they resume where they were", waiting)
	}
	if waiting > 0 {
		s += " when an agent calls pr_monitor_start (or pr_monitor_start_all) again."
	}
	return s
}

// budgetLine tells one watcher's spend: "api.github.com: 120 of 1250 points this hour (25 % of
// 5000), 4880 left until 10:00; 4 PRs, each looked at every 12s".
func budgetLine(b statusBudget, now time.Time) string {
	host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(b.API, "https://"), "http://"), "/")
	allowed := int(b.Budget * float64(b.Limit))
	s := fmt.Sprintf("%s: %d of %d points this hour (%g %% of %d)", host, b.Points, allowed, b.Budget*100, b.Limit)
	if !b.ResetAt.IsZero() {
		s += fmt.Sprintf(", %d left until %s", b.Remaining, clock(b.ResetAt, now))
	}
	if b.CycleSeconds > 0 {
		s += fmt.Sprintf("; %s, each looked at every %s", text.Count(b.PRs, "PR", "PRs"), time.Duration(b.CycleSeconds*float64(time.Second)).Round(time.Second))
	}
	if b.QuietUntil != nil && b.QuietUntil.After(now) {
		s += "; quiet until " + clock(*b.QuietUntil, now)
	}
	switch age := now.Sub(b.UpdatedAt); {
	case b.UpdatedAt.IsZero():
	case age > time.Hour:
		s += " (last saved " + clock(b.UpdatedAt, now) + ", over an hour ago: no watcher is running on it)"
	default:
		s += " (as of " + since(b.UpdatedAt, now) + " ago)"
	}
	return sanitize.Line(s)
}

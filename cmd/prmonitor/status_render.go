package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// statusColumn is one column of the monitors table: its heading, its widest and narrowest width,
// and its cell for a monitor.
type statusColumn struct {
	head     string
	max, min int
	cell     func(m statusMonitor, now time.Time) string
}

// statusColumns in the order shown. When the width is short the flexible columns shrink to their
// minimum, then columns go, last first (dropOrder).
var statusColumns = []statusColumn{
	{"PR", 34, 15, func(m statusMonitor, _ time.Time) string { return m.PR }},
	{"STATE", 36, 16, func(m statusMonitor, _ time.Time) string { return m.State }},
	{"WAITING FOR", 48, 16, func(m statusMonitor, _ time.Time) string { return m.WaitingFor }},
	{"SINCE", 7, 7, func(m statusMonitor, now time.Time) string { return since(m.WaitingSince, now) }},
	{"LAST EVENT", 60, 24, func(m statusMonitor, now time.Time) string {
		if m.LastEvent == nil {
			return "-"
		}
		return clock(m.LastEvent.At, now) + " " + m.LastEvent.Summary
	}},
}

// dropOrder: which columns go first when even their minimum widths do not fit.
var dropOrder = []string{"LAST EVENT", "STATE", "SINCE", "WAITING FOR"}

// statusGap separates the columns.
const statusGap = "  "

// defaultStatusWidth is the table's width when status prints to a pipe or a file.
const defaultStatusWidth = 160

// statusTable renders the monitors, at most rows of them (0: all), in at most width columns of
// text: a heading and one line a monitor, every cell on one line and clipped to its column.
func statusTable(ms []statusMonitor, now time.Time, width, rows int) []string {
	if rows > 0 && len(ms) > rows {
		ms = ms[:rows]
	}
	cols := statusColumns
	cells := make([][]string, len(ms))
	for i, m := range ms {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = oneLine(c.cell(m, now))
		}
	}
	keep := make([]bool, len(cols))
	widths := make([]int, len(cols))
	for j, c := range cols {
		keep[j] = true
		widths[j] = utf8.RuneCountInString(c.head)
		for i := range cells {
			widths[j] = max(widths[j], utf8.RuneCountInString(cells[i][j]))
		}
		widths[j] = min(widths[j], c.max)
	}
	fit(cols, widths, keep, width)

	var out []string
	line := func(cell func(j int) string) {
		var b strings.Builder
		for j := range cols {
			if !keep[j] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(statusGap)
			}
			b.WriteString(pad(clip(cell(j), widths[j]), widths[j]))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	line(func(j int) string { return cols[j].head })
	for i := range cells {
		line(func(j int) string { return cells[i][j] })
	}
	return out
}

// fit narrows and drops columns until the table fits width.
func fit(cols []statusColumn, widths []int, keep []bool, width int) {
	total := func() int {
		n, t := 0, 0
		for j := range cols {
			if keep[j] {
				t += widths[j]
				n++
			}
		}
		return t + len(statusGap)*max(n-1, 0)
	}
	for drop := 0; total() > width; {
		// Shrink the widest column that may still shrink.
		widest := -1
		for j, c := range cols {
			if keep[j] && widths[j] > c.min && (widest < 0 || widths[j] > widths[widest]) {
				widest = j
			}
		}
		if widest >= 0 {
			widths[widest]--
			continue
		}
		if drop == len(dropOrder) {
			return // the PR column alone: let the terminal cut it
		}
		for j, c := range cols {
			if c.head == dropOrder[drop] {
				keep[j] = false
			}
		}
		drop++
	}
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
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

// writeStatus prints the report for a person: the monitors table (at most rows, 0: all), the
// records it could not read, and each watcher's budget.
func writeStatus(w io.Writer, r statusReport, width, rows int) {
	now := r.At
	if len(r.Monitors) == 0 {
		fmt.Fprintf(w, "No monitors saved in %s.\n", r.StateDir)
	} else {
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
			fmt.Fprintf(w, "  %s: %s\n", u.File, clip(u.Problem, max(width-len(u.File)-4, 20)))
		}
	}
	if len(r.Budgets) > 0 {
		fmt.Fprintln(w, "\nBudget:")
		for _, b := range r.Budgets {
			fmt.Fprintf(w, "  %s\n", budgetLine(b, now))
		}
	}
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
		s += fmt.Sprintf("; %d PRs, each looked at every %s", b.PRs, time.Duration(b.CycleSeconds*float64(time.Second)).Round(time.Second))
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
	return oneLine(s)
}

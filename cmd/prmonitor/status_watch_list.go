package main

import (
	"fmt"
	"slices"

	"charm.land/lipgloss/v2"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// The list screen: the title, whether a server runs, the question that waits on you, the
// monitors table (scrolled to the selected row), the newest events, the budget and the keys.

// selMark marks the selected row (and the room it takes on every row).
const (
	selMark   = "> "
	unselMark = "  "
)

// listLayout is how the list screen shares the window's height.
type listLayout struct {
	top, bottom []string
	events      int // event lines under the table, heading excluded
	rows        int // monitor rows the table shows
}

func (m watchModel) layout() listLayout {
	width, height := m.size()
	l := listLayout{top: m.topLines(width, height), bottom: m.bottomLines(width)}
	room := height - len(l.top) - len(l.bottom)
	l.events = min(watchEvents, max(room/3-1, 1))
	// The table gets the rest, less two blank lines, the events' heading and its own.
	l.rows = room - (l.events + 1) - 2 - 1
	if len(m.snap.report.Monitors) > l.rows {
		l.rows-- // the line that says how many more there are
	}
	l.rows = max(l.rows, 1)
	return l
}

// tableRows is how many monitors the table shows at once.
func (m watchModel) tableRows() int { return m.layout().rows }

// listScreen is the list screen's lines, each within the window's width, as many as fit its
// height.
func (m watchModel) listScreen() []string {
	width, height := m.size()
	l := m.layout()
	middle := append(m.tableLines(width, l.rows), "")
	middle = append(append(middle, m.eventLines(width, l.events)...), "")
	// On a short window the middle gives way first: the title, the keys and the budget stay.
	if avail := max(height-len(l.top)-len(l.bottom), 0); len(middle) > avail {
		middle = middle[:avail]
	}
	out := append(append(slices.Clone(l.top), middle...), l.bottom...)
	if len(out) > height {
		out = append(out[:height-1], out[len(out)-1])
	}
	return out
}

// topLines are the title, whether a server runs (or why the directory cannot be read), and the
// question that waits on you, first.
func (m watchModel) topLines(width, height int) []string {
	r := m.snap.report
	title := "prmonitor status · " + m.cfg.dir
	if m.loaded && m.err == nil {
		title += fmt.Sprintf(" · %s · %s", text.Count(len(r.Monitors), "monitor", "monitors"), clock(r.At, r.At))
	}
	top := []string{m.styles.title.Render(clipWidth(title, width))}
	switch {
	case m.err != nil:
		top = append(top, m.styles.failure.Render(clipWidth("cannot read: "+sanitize.Line(m.err.Error()), width)))
	case !m.loaded:
		top = append(top, m.styles.faint.Render(clipWidth("reading…", width)))
	default:
		top = append(top, clipWidth(serverLine(m.snap), width))
	}
	// The question that waits on you comes first, as far as the window allows: a few lines of it in
	// a tall window, its first in a short one, none in a tiny one (the table still shows it).
	switch {
	case height >= 20:
		top = append(top, m.questionLines(width, 3)...)
	case height >= 12:
		top = append(top, m.questionLines(width, 1)...)
	}
	return append(top, "")
}

// questionLines show the question that has waited longest on you, in full when it fits in
// lines, with how many more wait.
func (m watchModel) questionLines(width, lines int) []string {
	var asking []statusMonitor
	for _, x := range m.snap.report.Monitors {
		if x.Phase == phaseAsking && !x.serverless() && x.Question != nil {
			asking = append(asking, x)
		}
	}
	if len(asking) == 0 {
		return nil
	}
	q := asking[0]
	head := fmt.Sprintf("Waiting for your answer · %s · %s", q.PR, since(q.WaitingSince, m.snap.report.At))
	if n := len(asking) - 1; n > 0 {
		head += fmt.Sprintf(" (and %d more %s)", n, pick(n == 1, "question", "questions"))
	}
	out := []string{m.styles.asking.Render(clipWidth(head, width))}
	text := wrapWidth(q.Question.Text, width-2)
	if len(text) > lines {
		text = text[:lines]
		text[lines-1] = clipWidth(text[lines-1]+" …", width-2)
		if ext := " (Enter on its row shows it whole)"; displayWidth(text[lines-1]+ext) <= width-2 {
			text[lines-1] += ext
		}
	}
	for _, t := range text {
		out = append(out, "  "+t)
	}
	return out
}

// bottomLines are the unreadable files' count, each watcher's budget, and the keys.
func (m watchModel) bottomLines(width int) []string {
	r := m.snap.report
	var bottom []string
	if n := len(r.Unreadable); n > 0 {
		bottom = append(bottom, m.styles.failure.Render(clipWidth(text.Count(n, "file", "files")+" unreadable (prmonitor status lists why)", width)))
	}
	for _, b := range r.Budgets {
		bottom = append(bottom, m.styles.faint.Render(clipWidth("budget "+budgetLine(b, r.At), width)))
	}
	keys := "q quit · ? help · ↑↓ move · enter details · refreshes every second"
	return append(bottom, m.styles.faint.Render(clipWidth(keys, width)))
}

// tableLines are the monitors table, rows of it from m.top, with a line for those left out.
func (m watchModel) tableLines(width, rows int) []string {
	r := m.snap.report
	switch {
	case !m.loaded || m.err != nil && r.StateDir == "":
		return nil
	case len(r.Monitors) == 0:
		return []string{clipWidth("No monitors to show.", width)}
	}
	inner := width - displayWidth(selMark)
	l := layoutStatus(r.Monitors, r.At, inner)
	table := []string{m.styles.head.Render(clipWidth(unselMark+l.heading(), width))}
	end := min(m.top+rows, len(r.Monitors))
	for i := m.top; i < end; i++ {
		x := r.Monitors[i]
		line := l.line(statusCells(x, r.At))
		if i == m.cursor {
			table = append(table, m.styles.selected.Render(clipWidth(selMark+padWidth(line, inner), width)))
			continue
		}
		table = append(table, m.rowStyle(x).Render(clipWidth(unselMark+line, width)))
	}
	above, below := m.top, len(r.Monitors)-end
	var more string
	switch {
	case below > 0 && above > 0:
		more = fmt.Sprintf("… and %d more, %d above", below, above)
	case below > 0:
		more = fmt.Sprintf("… and %d more (↓ scrolls)", below)
	case above > 0:
		more = fmt.Sprintf("%d above (↑ scrolls)", above)
	}
	if more != "" {
		table = append(table, m.styles.faint.Render(clipWidth(unselMark+more, width)))
	}
	return table
}

// eventLines are the newest events across every monitor, newest first, at most n.
func (m watchModel) eventLines(width, n int) []string {
	evs := slices.Clone(m.snap.recent)
	slices.SortStableFunc(evs, func(a, b recentEvent) int { return b.At.Compare(a.At) })
	if len(evs) > n {
		evs = evs[:n]
	}
	out := []string{m.styles.head.Render(clipWidth("RECENT EVENTS", width))}
	if len(evs) == 0 {
		return append(out, m.styles.faint.Render(clipWidth("none yet", width)))
	}
	for _, e := range evs {
		out = append(out, clipWidth(fmt.Sprintf("%s  %s  %s", clock(e.At, m.snap.report.At), sanitize.Line(e.PR), sanitize.Line(e.Summary)), width))
	}
	return out
}

func (m watchModel) rowStyle(x statusMonitor) lipgloss.Style {
	switch {
	case x.Ended, x.serverless():
		return m.styles.faint
	case x.Phase == phaseAsking:
		return m.styles.asking
	case x.Phase == phaseAgent:
		return m.styles.agent
	}
	return lipgloss.NewStyle()
}

// pick is a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

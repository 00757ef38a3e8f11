package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// The detail screen shows the selected monitor whole (its question with every line, its task,
// whether a server runs it, its events), scrolled with the arrows; the help screen lists the keys.

// detailScreen is the selected monitor in detail, from line m.scroll, within the window.
func (m watchModel) detailScreen() []string {
	width, height := m.size()
	ms := m.snap.report.Monitors
	if m.cursor >= len(ms) {
		return m.listScreen()
	}
	body := m.detailLines(ms[m.cursor], width)
	keys := m.styles.faint.Render(clipWidth("q quit · esc back · ↑↓ scroll · ? help", width))
	room := max(height-1, 1)
	scroll := min(m.scroll, max(len(body)-room, 0))
	body = body[scroll:min(scroll+room, len(body))]
	for len(body) < room {
		body = append(body, "")
	}
	return append(body, keys)
}

// detailLines are everything the state directory says of one monitor, wrapped to width.
func (m watchModel) detailLines(x statusMonitor, width int) []string {
	now := m.snap.report.At
	var out []string
	add := func(s string) { out = append(out, wrapWidth(s, width)...) }
	field := func(label, value string) {
		for i, l := range wrapWidth(value, max(width-14, 10)) {
			if i == 0 {
				out = append(out, fmt.Sprintf("%-14s%s", label, l))
			} else {
				out = append(out, strings.Repeat(" ", 14)+l)
			}
		}
	}
	title := x.PR
	if x.Title != "" {
		title += " · " + x.Title
	}
	out = append(out, m.styles.title.Render(clipWidth(title, width)))
	if x.URL != "" {
		add(x.URL)
	}
	out = append(out, "")
	field("State", x.State)
	field("Waiting for", x.WaitingFor+" (since "+since(x.WaitingSince, now)+")")
	switch {
	case x.Ended:
		field("Ended", x.EndedReason)
	case x.ServerPID > 0:
		field("Server", fmt.Sprintf("pid %d runs it", x.ServerPID))
	default:
		field("Server", "none runs it: it resumes where it was when an agent calls pr_monitor_start("+x.PR+") again")
	}
	field("Monitor", fmt.Sprintf("%s · started %s · saved %s", x.MonitorID, clock(x.CreatedAt, now), clock(x.UpdatedAt, now)))
	if q := x.Question; q != nil {
		out = append(out, "", m.styles.head.Render(clipWidth(fmt.Sprintf("Question (%s)", q.ID), width)))
		for _, l := range q.lines {
			for _, w := range wrapWidth(l, width-2) {
				out = append(out, "  "+w)
			}
		}
		if len(q.choices) > 0 {
			for _, w := range wrapWidth("Choices: "+strings.Join(q.choices, " · "), width-2) {
				out = append(out, "  "+w)
			}
		}
	}
	if t := x.Task; t != nil {
		out = append(out, "")
		handed := ""
		if !t.StartedAt.IsZero() {
			handed = " (handed out " + clock(t.StartedAt, now) + ")"
		}
		field("Task", t.Words+handed)
	}
	out = append(out, "", m.styles.head.Render(clipWidth("EVENTS, newest first", width)))
	evs := slices.Clone(m.snap.recent)
	evs = slices.DeleteFunc(evs, func(e recentEvent) bool { return e.PR != x.PR })
	slices.SortStableFunc(evs, func(a, b recentEvent) int { return b.At.Compare(a.At) })
	if len(evs) == 0 {
		out = append(out, m.styles.faint.Render("none"))
	}
	for _, e := range evs {
		add(clock(e.At, now) + "  " + sanitize.Line(e.Summary))
	}
	return out
}

// helpKeys are the live view's keys, as the help screen lists them.
var helpKeys = [][2]string{
	{"↑ k  ↓ j", "move between monitors (in a monitor's details: scroll)"},
	{"PgUp PgDn", "a page up or down"},
	{"Home g  End G", "the first or the last monitor"},
	{"Enter", "the selected monitor in detail: the whole question, its task, its events"},
	{"Esc", "back (from the details or this help)"},
	{"?", "this help"},
	{"q  Ctrl+C", "quit"},
}

// helpScreen lists the keys.
func (m watchModel) helpScreen() []string {
	width, height := m.size()
	out := []string{m.styles.title.Render(clipWidth("prmonitor status --watch: keys", width)), ""}
	for _, k := range helpKeys {
		out = append(out, clipWidth(fmt.Sprintf("  %-15s %s", k[0], k[1]), width))
	}
	out = append(out, "", clipWidth("The view reads the state directory every second and never writes to it.", width),
		clipWidth("Questions that wait on you come first; monitors no server runs come after those a server runs.", width))
	if len(out) > height-1 {
		out = out[:height-1]
	}
	return append(out, m.styles.faint.Render(clipWidth("q quit · esc back", width)))
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// watchInterval is how often the live view re-reads the state directory.
const watchInterval = time.Second

// watchEvents is the most events the live view shows.
const watchEvents = 8

// runStatusWatch keeps a live view of the state directory open until the user quits (q or
// ctrl+c) or ctx ends. It needs a terminal; it never writes to the state directory.
func runStatusWatch(ctx context.Context, dir string, e env) int {
	f, ok := e.Stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		fmt.Fprintln(e.Stderr, "prmonitor status: --watch needs a terminal; in a script use 'prmonitor status' or 'prmonitor status --json'")
		return exitUsage
	}
	return watch(ctx, dir, e)
}

// watch runs the live view on e's streams; extra options are for the tests (a window size where
// the output is no terminal).
func watch(ctx context.Context, dir string, e env, extra ...tea.ProgramOption) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends a tick in flight when the view quits
	reader := store.NewReader(dir, statusEvents)
	m := newWatchModel(watchConfig{
		dir:     dir,
		load:    func() (statusSnapshot, error) { return readStatus(reader, e.Now()) },
		tick:    func() tea.Cmd { return every(ctx, watchInterval) },
		noColor: e.Getenv("NO_COLOR") != "",
	})
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(e.Stdin), tea.WithOutput(e.Stdout)}
	if e.Getenv("NO_COLOR") != "" {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	final, err := tea.NewProgram(m, append(opts, extra...)...).Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	if wm, ok := final.(watchModel); ok && wm.err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", oneLine(statusError(dir, wm.err).Error()))
		return exitFailure
	}
	return exitOK
}

// every is the live view's ticker: a refresh after d, or nothing once ctx ends.
func every(ctx context.Context, d time.Duration) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return refreshMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

// watchConfig is what the live view is given: how to read the state directory, when to read it
// again (the ticker, injected so tests drive it), and whether colour is wanted.
type watchConfig struct {
	dir     string
	load    func() (statusSnapshot, error)
	tick    func() tea.Cmd
	noColor bool
}

// refreshMsg asks the view to read the state directory again.
type refreshMsg struct{}

// loadedMsg is one read of the state directory.
type loadedMsg struct {
	snap statusSnapshot
	err  error
}

// watchModel is the live view: the monitors table on top, the newest events below, the budget
// and the keys at the bottom. It re-reads the state directory on every tick, one read at a time,
// and adapts to the window's width and height.
type watchModel struct {
	cfg    watchConfig
	styles watchStyles
	snap   statusSnapshot
	err    error
	loaded bool
	width  int
	height int
}

// watchStyles are the view's styles; without colour only bold and faint remain.
type watchStyles struct {
	title, head, faint, asking, agent, failure lipgloss.Style
}

func newWatchStyles(noColor bool) watchStyles {
	s := watchStyles{
		title:   lipgloss.NewStyle().Bold(true),
		head:    lipgloss.NewStyle().Bold(true),
		faint:   lipgloss.NewStyle().Faint(true),
		asking:  lipgloss.NewStyle().Bold(true),
		agent:   lipgloss.NewStyle(),
		failure: lipgloss.NewStyle().Bold(true),
	}
	if !noColor {
		s.asking = s.asking.Foreground(lipgloss.Yellow)
		s.agent = s.agent.Foreground(lipgloss.Cyan)
		s.failure = s.failure.Foreground(lipgloss.Red)
	}
	return s
}

func newWatchModel(cfg watchConfig) watchModel {
	return watchModel{cfg: cfg, styles: newWatchStyles(cfg.noColor), width: 80, height: 24}
}

// Init reads the state directory at once.
func (m watchModel) Init() tea.Cmd { return m.load() }

func (m watchModel) load() tea.Cmd {
	return func() tea.Msg {
		snap, err := m.cfg.load()
		return loadedMsg{snap: snap, err: err}
	}
}

// Update handles keys, the window's size, ticks and reads.
func (m watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case refreshMsg:
		return m, m.load()
	case loadedMsg:
		m.loaded = true
		// A failed read (no directory yet, a passing error) keeps the last picture and tries again
		// on the next tick: a server may create the directory meanwhile.
		m.err = msg.err
		if msg.err == nil {
			m.snap = msg.snap
		}
		return m, m.cfg.tick()
	}
	return m, nil
}

func (m watchModel) hasData() bool { return m.snap.report.StateDir != "" }

// View draws the screen.
func (m watchModel) View() tea.View {
	v := tea.NewView(strings.Join(m.lines(), "\n"))
	v.AltScreen = true
	v.WindowTitle = "prmonitor status"
	return v
}

// lines are the screen's lines, each within the window's width, as many as fit its height.
func (m watchModel) lines() []string {
	width, height := max(m.width, 20), max(m.height, 6)
	top, bottom := m.topLines(width), m.bottomLines(width)
	room := height - len(top) - len(bottom) - 1
	events := m.eventLines(width, min(watchEvents, max(room/3, 1)))
	table := m.tableLines(width, room-len(events)-1)

	// On a short window the middle gives way first: the title, the keys and the budget stay.
	middle := append(append(append(table, ""), events...), "")
	if avail := max(height-len(top)-len(bottom), 0); len(middle) > avail {
		middle = middle[:avail]
	}
	out := append(append(top, middle...), bottom...)
	if len(out) > height {
		out = append(out[:height-1], out[len(out)-1])
	}
	return out
}

// topLines are the title, and a line on a read that failed or has not come yet.
func (m watchModel) topLines(width int) []string {
	r := m.snap.report
	title := "prmonitor status · " + m.cfg.dir
	if m.hasData() {
		title += fmt.Sprintf(" · %s · %s", count(len(r.Monitors), "monitor"), clock(r.At, r.At))
	}
	top := []string{m.styles.title.Render(clip(title, width))}
	switch {
	case m.err != nil:
		top = append(top, m.styles.failure.Render(clip("cannot read: "+oneLine(statusError(m.cfg.dir, m.err).Error()), width)))
	case !m.loaded:
		top = append(top, m.styles.faint.Render(clip("reading…", width)))
	}
	return append(top, "")
}

// bottomLines are the unreadable files' count, each watcher's budget, and the keys.
func (m watchModel) bottomLines(width int) []string {
	r := m.snap.report
	var bottom []string
	if n := len(r.Unreadable); n > 0 {
		bottom = append(bottom, m.styles.failure.Render(clip(count(n, "file")+" unreadable (prmonitor status lists why)", width)))
	}
	for _, b := range r.Budgets {
		bottom = append(bottom, m.styles.faint.Render(clip("budget "+budgetLine(b, r.At), width)))
	}
	return append(bottom, m.styles.faint.Render(clip("q quit · refreshes every second", width)))
}

// tableLines are the monitors table in at most room lines, with a line for those left out.
func (m watchModel) tableLines(width, room int) []string {
	r := m.snap.report
	switch {
	case !m.hasData():
		return nil
	case len(r.Monitors) == 0:
		return []string{clip("No monitors saved yet.", width)}
	}
	rows := max(room-1, 1) // the heading takes a line
	if rows < len(r.Monitors) {
		rows = max(rows-1, 1) // and so does "… and N more"
	}
	lines := statusTable(r.Monitors, r.At, width, rows)
	table := []string{m.styles.head.Render(clip(lines[0], width))}
	for i, l := range lines[1:] {
		table = append(table, m.rowStyle(r.Monitors[i].Phase).Render(clip(l, width)))
	}
	if shown := len(lines) - 1; shown < len(r.Monitors) {
		table = append(table, m.styles.faint.Render(clip(fmt.Sprintf("… and %d more", len(r.Monitors)-shown), width)))
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
	out := []string{m.styles.head.Render(clip("RECENT EVENTS", width))}
	if len(evs) == 0 {
		return append(out, m.styles.faint.Render(clip("none yet", width)))
	}
	for _, e := range evs {
		out = append(out, clip(fmt.Sprintf("%s  %s  %s", clock(e.At, m.snap.report.At), oneLine(e.PR), oneLine(e.Summary)), width))
	}
	return out
}

func (m watchModel) rowStyle(phase string) lipgloss.Style {
	switch phase {
	case phaseAsking:
		return m.styles.asking
	case phaseAgent:
		return m.styles.agent
	case phaseEnded:
		return m.styles.faint
	}
	return lipgloss.NewStyle()
}

// count is n things: "1 monitor", "3 monitors".
func count(n int, what string) string { return fmt.Sprintf("%d %s%s", n, what, plural(n)) }

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
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// watchInterval is how often the live view re-reads the state directory.
const watchInterval = time.Second

// watchEvents is the most events the live view shows under the table.
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
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	if wm, ok := final.(watchModel); ok && wm.err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor status: %s\n", sanitize.Line(wm.err.Error()))
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

// watchScreen is what the live view shows: the list of monitors, one monitor in detail, or the
// keys.
type watchScreen int

const (
	screenList watchScreen = iota
	screenDetail
	screenHelp
)

// watchModel is the live view: the monitors table on top, the newest events below, the budget
// and the keys at the bottom; Enter shows the selected monitor whole. It re-reads the state
// directory on every tick, one read at a time, and adapts to the window's width and height.
type watchModel struct {
	cfg    watchConfig
	styles watchStyles
	snap   statusSnapshot
	err    error
	loaded bool
	width  int
	height int

	screen   watchScreen
	back     watchScreen // where the help returns to
	cursor   int         // the selected monitor, an index into snap.report.Monitors
	selected string      // its id, followed across refreshes that reorder the list
	top      int         // the first monitor the table shows
	scroll   int         // the first line the detail shows
}

// watchStyles are the view's styles; without colour only bold, faint and reverse remain.
type watchStyles struct {
	title, head, faint, asking, agent, failure, selected lipgloss.Style
}

func newWatchStyles(noColor bool) watchStyles {
	s := watchStyles{
		title:    lipgloss.NewStyle().Bold(true),
		head:     lipgloss.NewStyle().Bold(true),
		faint:    lipgloss.NewStyle().Faint(true),
		asking:   lipgloss.NewStyle().Bold(true),
		agent:    lipgloss.NewStyle(),
		failure:  lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
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
		return m.key(msg.String())
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m = m.follow()
	case refreshMsg:
		return m, m.load()
	case loadedMsg:
		m.loaded = true
		// A failed read (a passing error) keeps the last picture and tries again on the next tick.
		m.err = msg.err
		if msg.err == nil {
			m.snap = msg.snap
			m = m.reselect()
		}
		return m, m.cfg.tick()
	}
	return m, nil
}

// key acts on one key press.
func (m watchModel) key(k string) (tea.Model, tea.Cmd) {
	if k == "q" || k == "ctrl+c" {
		return m, tea.Quit
	}
	switch m.screen {
	case screenHelp:
		if k == "esc" || k == "?" || k == "enter" || k == "backspace" || k == "left" || k == "h" {
			m.screen = m.back
		}
		return m, nil
	case screenDetail:
		switch k {
		case "esc", "enter", "backspace", "left", "h":
			m.screen = screenList
		case "?":
			m.screen, m.back = screenHelp, screenDetail
		case "up", "k":
			m.scroll = max(m.scroll-1, 0)
		case "down", "j":
			m.scroll++
		case "pgup":
			m.scroll = max(m.scroll-m.page(), 0)
		case "pgdown", "space":
			m.scroll += m.page()
		case "home", "g":
			m.scroll = 0
		}
		return m, nil
	}
	n := len(m.snap.report.Monitors)
	switch k {
	case "esc":
		return m, tea.Quit
	case "?":
		m.screen, m.back = screenHelp, screenList
	case "enter", "right", "l":
		if n > 0 {
			m.screen, m.scroll = screenDetail, 0
		}
	case "up", "k":
		m.cursor--
	case "down", "j":
		m.cursor++
	case "pgup":
		m.cursor -= m.page()
	case "pgdown", "space":
		m.cursor += m.page()
	case "home", "g":
		m.cursor = 0
	case "end", "G":
		m.cursor = n - 1
	}
	m.cursor = min(max(m.cursor, 0), max(n-1, 0))
	if n > 0 {
		m.selected = m.snap.report.Monitors[m.cursor].MonitorID
	}
	return m.follow(), nil
}

// page is how far PgUp and PgDn move: the rows the table shows.
func (m watchModel) page() int { return max(m.tableRows(), 1) }

// reselect keeps the selected monitor selected after a read that reordered the list.
func (m watchModel) reselect() watchModel {
	ms := m.snap.report.Monitors
	if i := slices.IndexFunc(ms, func(x statusMonitor) bool { return x.MonitorID == m.selected }); i >= 0 {
		m.cursor = i
	}
	m.cursor = min(max(m.cursor, 0), max(len(ms)-1, 0))
	if len(ms) > 0 {
		m.selected = ms[m.cursor].MonitorID
	} else if m.screen == screenDetail {
		m.screen = screenList
	}
	return m.follow()
}

// follow scrolls the table so that the selected monitor is on screen.
func (m watchModel) follow() watchModel {
	rows := max(m.tableRows(), 1)
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+rows {
		m.top = m.cursor - rows + 1
	}
	m.top = min(max(m.top, 0), max(len(m.snap.report.Monitors)-rows, 0))
	return m
}

// View draws the screen.
func (m watchModel) View() tea.View {
	var lines []string
	switch m.screen {
	case screenDetail:
		lines = m.detailScreen()
	case screenHelp:
		lines = m.helpScreen()
	default:
		lines = m.listScreen()
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.WindowTitle = "prmonitor status"
	return v
}

// size is the window's size, never smaller than the view can use.
func (m watchModel) size() (width, height int) { return max(m.width, 20), max(m.height, 6) }

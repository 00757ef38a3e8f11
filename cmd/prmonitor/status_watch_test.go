package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/charmbracelet/x/vt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// watchHarness runs the live view on a state directory under teatest, with a ticker the test
// drives (each tick is one refresh, as a second passing would be), and replays everything the
// program writes on a virtual terminal, so the test reads the screen a person would see.
type watchHarness struct {
	tm    *teatest.TestModel
	ticks chan struct{}

	mu     sync.Mutex
	screen *vt.Emulator
	raw    strings.Builder
}

func startWatch(t *testing.T, dir string, noColor bool, width, height int) *watchHarness {
	t.Helper()
	reader := store.NewReader(dir, statusEvents)
	return startWatchOn(t, dir, func() (statusSnapshot, error) { return readStatus(reader, testNow) }, noColor, width, height)
}

// startWatchOn is startWatch on reads that load returns.
func startWatchOn(t *testing.T, dir string, load func() (statusSnapshot, error), noColor bool, width, height int) *watchHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &watchHarness{ticks: make(chan struct{}), screen: vt.NewEmulator(width, height)}
	// The emulator answers the program's terminal queries on its own pipe: drain it.
	// (Closing that pipe ends the drain; Emulator.Close would race with the drain's Read.)
	answers, ok := h.screen.InputPipe().(*io.PipeWriter)
	require.True(t, ok, "the emulator answers on a pipe")
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, h.screen); close(drained) }()
	t.Cleanup(func() { _ = answers.CloseWithError(io.EOF); <-drained })
	m := newWatchModel(watchConfig{
		dir:  dir,
		load: load,
		tick: func() tea.Cmd {
			return func() tea.Msg {
				select {
				case <-h.ticks:
					return refreshMsg{}
				case <-ctx.Done():
					return nil
				}
			}
		},
		noColor: noColor,
	})
	// The program's terminal is the emulator's, an xterm, whatever terminal (or none: CI, env -i)
	// runs the tests: the renderer picks its escape sequences by TERM.
	h.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(width, height),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.TrueColor), tea.WithEnvironment([]string{"TERM=xterm-256color"})))
	return h
}

// tick is one refresh of the view.
func (h *watchHarness) tick(t *testing.T) {
	t.Helper()
	select {
	case h.ticks <- struct{}{}:
	case <-time.After(10 * time.Second):
		t.Fatal("the view asked for no refresh")
	}
}

// waitFor waits until the screen shows every one of want, and returns the screen.
func (h *watchHarness) waitFor(t *testing.T, want ...string) string {
	t.Helper()
	var screen string
	fed := 0 // WaitFor hands over everything it read so far: replay only what is new
	teatest.WaitFor(t, h.tm.Output(), func(b []byte) bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.raw.Write(b[fed:])
		// A terminal in its usual mode (ONLCR) starts a new line at its first column.
		_, _ = h.screen.Write(bytes.ReplaceAll(b[fed:], []byte("\n"), []byte("\r\n")))
		fed = len(b)
		screen = h.screen.String()
		for _, w := range want {
			if !strings.Contains(screen, w) {
				if testing.Verbose() {
					t.Logf("screen lacks %q:\n%s", w, screen)
				}
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	return screen
}

// output is everything the program wrote so far, escape sequences included.
func (h *watchHarness) output() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.raw.String()
}

func (h *watchHarness) quits(t *testing.T, keys func()) {
	t.Helper()
	keys()
	h.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

func TestTheLiveViewShowsAMonitorAddedWhileItRunsAndQuitsOnQ(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	h := startWatch(t, d.dir, false, 120, 30)
	screen := h.waitFor(t, "acme/widgets#7", "merge conflict: asking you", "RECENT EVENTS",
		"acme/widgets#7  checked GitHub: merge conflict → merge conflict: asking you", "q quit")
	assert.NotContains(t, screen, "acme/widgets#8")

	d.add(pr(8), atTask)
	h.tick(t)
	screen = h.waitFor(t, "acme/widgets#8", "merge conflict: agent at work", "the agent to finish the rebase",
		"acme/widgets#8  you chose rebase", "2 monitors")
	lines := strings.Split(screen, "\n")
	var events []string
	for i, l := range lines {
		if strings.HasPrefix(l, "RECENT EVENTS") {
			events = lines[i+1:]
			break
		}
	}
	require.NotEmpty(t, events)
	assert.Contains(t, events[0], "acme/widgets#8  you chose rebase", "the newest event first")

	h.quits(t, func() { h.tm.Type("q") })
}

func TestTheLiveViewQuitsOnCtrlC(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atWatchingCI)
	h := startWatch(t, d.dir, false, 100, 20)
	h.waitFor(t, "acme/widgets#7", "CI to finish")
	h.quits(t, func() { h.tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}) })
}

// sgrColour matches a select-graphic-rendition sequence that sets a colour.
var sgrColour = regexp.MustCompile(`\x1b\[[0-9;:]*(?:3[0-8]|9[0-7]|4[0-8]|10[0-7])[;:m]`)

// With NO_COLOR the view keeps bold and faint and drops every colour, on a terminal that could
// show them.
func TestTheLiveViewHonoursNoColor(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		t.Run(fmt.Sprintf("NO_COLOR=%v", noColor), func(t *testing.T) {
			d := newStateDir(t)
			d.add(pr(7), atQuestion)
			h := startWatch(t, d.dir, noColor, 100, 20)
			h.waitFor(t, "acme/widgets#7", "q quit")
			assert.Equal(t, !noColor, sgrColour.MatchString(h.output()), "colour codes in %q", h.output())
			h.quits(t, func() { h.tm.Type("q") })
		})
	}
}

// The view fits the window it is given, whatever its size, and follows a resize.
func TestTheLiveViewFitsTheWindow(t *testing.T) {
	d := newStateDir(t)
	for n := range 12 {
		d.add(pr(10+n), []string{atQuestion, atTask, atWatchingCI, atEnded}[n%4])
	}
	snap, err := readStatus(store.NewReader(d.dir, statusEvents), testNow)
	require.NoError(t, err)
	m := newWatchModel(watchConfig{noColor: true, tick: func() tea.Cmd { return nil }})
	next, _ := m.Update(loadedMsg{snap: snap})
	for _, size := range [][2]int{{30, 8}, {60, 15}, {80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			resized, _ := next.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			lines := strings.Split(resized.View().Content, "\n")
			assert.LessOrEqual(t, len(lines), size[1])
			for _, l := range lines {
				assert.LessOrEqual(t, ansi.StringWidth(l), size[0], "%q", ansi.Strip(l))
			}
			plain := ansi.Strip(resized.View().Content)
			assert.Contains(t, plain, "acme/widgets#")
			assert.Contains(t, plain, "q quit")
			shown, more, banner := 0, 0, false
			for _, l := range strings.Split(plain, "\n") {
				// The line under the "Waiting for your answer" banner is the question, not a row.
				afterBanner := banner
				banner = strings.Contains(l, "Waiting for your answer")
				row := strings.TrimPrefix(strings.TrimPrefix(l, selMark), unselMark)
				if strings.HasPrefix(row, "acme/") && !afterBanner {
					shown++
				}
				_, _ = fmt.Sscanf(row, "… and %d more", &more)
			}
			assert.Equal(t, 12, shown+more, "every monitor is shown or counted")
		})
	}
}

// A state directory that cannot be read is said on screen, and the view keeps following it.
func TestTheLiveViewSaysWhenItCannotReadAndKeepsTrying(t *testing.T) {
	m := newWatchModel(watchConfig{dir: "/x", noColor: true, tick: func() tea.Cmd { return func() tea.Msg { return refreshMsg{} } }})
	next, cmd := m.Update(loadedMsg{err: fmt.Errorf("store: read /x: %w", fs.ErrPermission)})
	require.NotNil(t, cmd, "it asks for the next refresh")
	assert.IsType(t, refreshMsg{}, cmd())
	plain := ansi.Strip(next.View().Content)
	assert.Contains(t, plain, "cannot read: store: read /x: permission denied")
	assert.True(t, errors.Is(next.(watchModel).err, fs.ErrPermission))
}

// The command's own program: it quits on q with exit 0, and on the end of its context (an
// interrupt) too; quitting while the directory cannot be read says why, with exit 1.
func TestTheWatchCommandQuitsCleanly(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	tests := []struct {
		name   string
		dir    string
		stop   func(in *io.PipeWriter, cancel context.CancelFunc)
		code   int
		stderr string
		ready  string // on screen before the key is pressed
	}{
		{"q", d.dir, func(in *io.PipeWriter, _ context.CancelFunc) { _, _ = in.Write([]byte("q")) }, exitOK, "", "acme/widgets#7"},
		{"interrupted", d.dir, func(_ *io.PipeWriter, cancel context.CancelFunc) { cancel() }, exitOK, "", "acme/widgets#7"},
		{"no directory yet", d.dir + "/missing", func(in *io.PipeWriter, _ context.CancelFunc) { _, _ = in.Write([]byte("q")) },
			exitOK, "", "Nothing is saved yet"},
		{"a file, not a directory", os.DevNull, func(in *io.PipeWriter, _ context.CancelFunc) { _, _ = in.Write([]byte("q")) },
			exitFailure, "prmonitor status: store: read " + os.DevNull, "cannot read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			in, keys := io.Pipe()
			defer keys.Close()
			out := &syncWriter{}
			var stderr strings.Builder
			e := (&testEnv{vars: map[string]string{"NO_COLOR": "1"}}).env(out, &stderr)
			e.Stdin = in
			done := make(chan int, 1)
			go func() { done <- watch(ctx, tt.dir, e, tea.WithWindowSize(100, 20)) }()
			require.Eventually(t, func() bool {
				return strings.Contains(out.String(), "q quit") && strings.Contains(out.String(), tt.ready)
			}, 10*time.Second, 10*time.Millisecond)
			tt.stop(keys, cancel)
			select {
			case code := <-done:
				assert.Equal(t, tt.code, code)
			case <-time.After(10 * time.Second):
				t.Fatal("the view did not quit")
			}
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
			assert.False(t, sgrColour.MatchString(out.String()), "NO_COLOR: no colour")
		})
	}
}

// syncWriter is a buffer the program writes while the test reads.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
func (w *syncWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.b.String() }

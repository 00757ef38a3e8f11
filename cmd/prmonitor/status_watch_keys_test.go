package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// press sends one named key (tea's names: "down", "enter", "esc", "pgdown") or typed text.
func (h *watchHarness) press(keys ...string) {
	codes := map[string]rune{"up": tea.KeyUp, "down": tea.KeyDown, "enter": tea.KeyEnter, "esc": tea.KeyEscape,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd}
	for _, k := range keys {
		if c, ok := codes[k]; ok {
			h.tm.Send(tea.KeyPressMsg{Code: c})
			continue
		}
		h.tm.Type(k)
	}
}

// screenLine is the first line of screen that starts with want, "" when none does.
func screenLine(screen, want string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, want) {
			return l
		}
	}
	return ""
}

// Every monitor can be reached: the arrows, j/k, PgDn, G and g move the selection and the table
// scrolls to keep it on screen, saying how many are above and below.
func TestTheLiveViewMovesWithTheKeysAndScrollsToEveryMonitor(t *testing.T) {
	d := newStateDir(t)
	for n := range 25 {
		d.add(pr(100+n), atWatchingCI) // listed in this order: the longest waiting first
	}
	h := startWatch(t, d.dir, true, 100, 20)
	screen := h.waitFor(t, selMark+"acme/widgets#100 ", "… and ", "more (↓ scrolls)")
	assert.Empty(t, screenLine(screen, unselMark+"acme/widgets#124 "), "the last is below")

	h.press("down", "j", "j")
	h.waitFor(t, selMark+"acme/widgets#103 ")
	h.press("k")
	h.waitFor(t, selMark+"acme/widgets#102 ")

	h.press("G")
	screen = h.waitFor(t, selMark+"acme/widgets#124 ", "above (↑ scrolls)")
	assert.Empty(t, screenLine(screen, unselMark+"acme/widgets#100 "), "scrolled down to the last")
	assert.NotContains(t, screen, "… and")

	h.press("g")
	h.waitFor(t, selMark+"acme/widgets#100 ", "more (↓ scrolls)")
	h.press("pgdown")
	screen = h.waitFor(t, "above")
	row := screenLine(screen, selMark+"acme/widgets#1")
	require.NotEmpty(t, row, "a row is selected:\n%s", screen)
	assert.NotContains(t, row, "#100 ", "a page down moved the selection")
	h.quits(t, func() { h.press("q") })
}

// In a wide window the question is not cut short in the table; Enter shows the selected monitor
// whole (every line of the question, its choices, whether a server runs it, its events) and Esc
// goes back.
func TestEnterShowsTheMonitorWithTheWholeQuestion(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(2), atWatchingCI)
	d.add(pr(7), atQuestion)
	// Questions name no branch (GitHub's names are data, docs/security.md); a long one (the merge
	// re-ask lists every change it saw) is written into the saved question.
	d.setQuestionText(pr(7), "acme/widgets#7 changed since you chose to merge: "+strings.Repeat("a new commit was pushed, a check failed, a reviewer asked for changes; ", 3)+"merge anyway?")
	r := statusJSON(t, d.dir)
	i := slices.IndexFunc(r.Monitors, func(m statusMonitor) bool { return m.PR == "acme/widgets#7" })
	require.GreaterOrEqual(t, i, 0)
	question := r.Monitors[i].Question.Text
	require.Greater(t, displayWidth(question), 150, "a long question: %q", question)

	h := startWatch(t, d.dir, true, 200, 40)
	screen := h.waitFor(t, selMark+"acme/widgets#7 ")
	row := screenLine(screen, selMark+"acme/widgets#7 ")
	assert.Contains(t, row, question[:90], "the table gives the question the room of a wide window: %q", row)

	h.press("enter")
	screen = h.waitFor(t, "Question (merge_conflict)", "Choices: ", "EVENTS, newest first", "pid ")
	for _, part := range wrapWidth(question, 198) {
		assert.Contains(t, screen, "  "+part+"\n", "the whole question, line by line")
	}
	assert.Contains(t, screen, "checked GitHub: merge conflict → merge conflict: asking you", "its events")
	assert.NotContains(t, screen, "acme/widgets#2", "only the selected monitor")
	assert.Contains(t, screen, "Server        pid ", "a server runs it")

	h.press("esc")
	h.waitFor(t, "RECENT EVENTS", "acme/widgets#2")
	h.quits(t, func() { h.press("q") })
}

// ? lists the keys; Esc closes the list.
func TestQuestionMarkListsTheKeys(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	h := startWatch(t, d.dir, true, 100, 24)
	h.waitFor(t, "? help")
	h.press("?")
	screen := h.waitFor(t, "prmonitor status --watch: keys", "Enter", "Esc", "q  Ctrl+C")
	assert.NotContains(t, screen, "RECENT EVENTS")
	h.press("esc")
	h.waitFor(t, "RECENT EVENTS")
	h.quits(t, func() { h.press("q") })
}

// The question that has waited longest on you comes first, above the table, with how many more
// wait.
func TestTheWaitingQuestionComesFirst(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(2), atWatchingCI)
	d.add(pr(4), atQuestion)
	d.add(pr(5), atQuestion)
	h := startWatch(t, d.dir, true, 120, 30)
	screen := h.waitFor(t, "Waiting for your answer · acme/widgets#4", "(and 1 more question)", "PR ")
	lines := strings.Split(screen, "\n")
	banner := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "Waiting for your answer") })
	heading := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "PR ") })
	assert.Less(t, banner, heading, "the question before the table:\n%s", screen)
	assert.Contains(t, lines[banner+1], "acme/widgets#4 conflicts with its base branch", "and the question itself")
	h.quits(t, func() { h.press("q") })
}

// The view says whether a server runs the monitors; once none does, the monitors say they wait for
// one instead of looking busy.
func TestTheLiveViewSaysWhetherAServerRuns(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	reader := store.NewReader(d.dir, statusEvents)
	h := startWatchOn(t, d.dir, func() (statusSnapshot, error) { return readStatus(reader, testNow) }, true, 160, 24)
	h.waitFor(t, "A server is running (pid ", "with 1 monitor.")

	d.release(pr(7))
	h.tick(t)
	screen := h.waitFor(t, "No server is running any of these monitors. The monitor resumes where it was")
	assert.Contains(t, screenLine(screen, selMark+"acme/widgets#7 "), "no server · your answer")
	assert.NotContains(t, screen, "Waiting for your answer", "no server asks it now")
	h.quits(t, func() { h.press("q") })
}

func TestStatusScreensFitTheirWindowWhateverTheKeys(t *testing.T) {
	d := newStateDir(t)
	for n := range 9 {
		d.add(pr(10+n), []string{atQuestion, atTask, atWatchingCI}[n%3])
	}
	snap, err := readStatus(store.NewReader(d.dir, statusEvents), testNow)
	require.NoError(t, err)
	for _, keys := range [][]string{nil, {"enter"}, {"?"}, {"G", "enter", "j", "j", "j"}} {
		for _, size := range [][2]int{{30, 8}, {80, 24}} {
			t.Run(fmt.Sprintf("%v %dx%d", keys, size[0], size[1]), func(t *testing.T) {
				var m tea.Model = newWatchModel(watchConfig{noColor: true, tick: func() tea.Cmd { return nil }})
				m, _ = m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m, _ = m.Update(loadedMsg{snap: snap})
				for _, k := range keys {
					key := tea.KeyPressMsg{Code: tea.KeyEnter}
					if k != "enter" {
						key = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
					}
					m, _ = m.Update(key)
				}
				lines := strings.Split(m.View().Content, "\n")
				assert.LessOrEqual(t, len(lines), size[1])
				for _, l := range lines {
					assert.LessOrEqual(t, displayWidth(l), size[0], "%q", l)
				}
				assert.Contains(t, m.View().Content, "q quit")
			})
		}
	}
}

// Columns line up in terminal cells whatever the text holds: a review comment in Japanese with an
// emoji takes two cells a character, and the columns after it still start at one place.
func TestStatusTableAlignsWideCharacters(t *testing.T) {
	ms := []statusMonitor{
		{PR: "acme/widgets#7", State: "new review comments: asking you", WaitingFor: "your answer: 修正してください 🚀 (reviewer)", WaitingSince: testNow.Add(-time.Hour)},
		{PR: "acme/widgets#8", State: "watching", WaitingFor: "your answer: fix it", WaitingSince: testNow.Add(-2 * time.Hour), ServerPID: 1},
		{PR: "acme/widgets#9", State: "watching", WaitingFor: "CI to finish", WaitingSince: testNow.Add(-3 * time.Hour), ServerPID: 1},
	}
	ms[0].ServerPID = 1
	for _, width := range []int{60, 100, 160} {
		lines := statusTable(ms, testNow, width, 0)
		col := displayWidth(lines[0][:strings.Index(lines[0], "SINCE")])
		for _, l := range lines[1:] {
			i := strings.IndexAny(l, "0123456789")
			for i >= 0 && !strings.HasPrefix(l[i:], "1h00m") && !strings.HasPrefix(l[i:], "2h00m") && !strings.HasPrefix(l[i:], "3h00m") {
				j := strings.IndexAny(l[i+1:], "0123456789")
				if j < 0 {
					i = -1
					break
				}
				i += j + 1
			}
			require.GreaterOrEqual(t, i, 0, "width %d: %q has its age", width, l)
			assert.Equal(t, col, displayWidth(l[:i]), "width %d: SINCE starts at one column: %q", width, l)
			assert.LessOrEqual(t, displayWidth(l), width)
		}
	}
}

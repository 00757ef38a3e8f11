package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/monitor"
)

// TestTheNextTurnGoesToWhoWaitedLongestAndNoneStarves: of the actions not handed out yet, the
// oldest goes first (ties by id); one handed out comes back only when asked for (at a call's
// deadline), least recently handed out first; in quiet hours questions wait and tasks go on.
func TestTheNextTurnGoesToWhoWaitedLongestAndNoneStarves(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a, b, c := &monitor.Monitor{ID: "a/r#1"}, &monitor.Monitor{ID: "a/r#2"}, &monitor.Monitor{ID: "a/r#3"}
	tests := []struct {
		name          string
		turns         []monitor.Turn
		quiet, handed bool
		want          *monitor.Monitor
	}{
		{name: "nobody waits", turns: []monitor.Turn{{Monitor: a}, {Monitor: b}}},
		{name: "the one waiting longest", want: b, turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Since: at.Add(time.Minute)}, {Monitor: b, Waiting: true, Since: at}, {Monitor: c}}},
		{name: "a tie goes by id", want: a, turns: []monitor.Turn{
			{Monitor: b, Waiting: true, Since: at}, {Monitor: a, Waiting: true, Since: at}}},
		{name: "an action handed out waits behind any that was not", want: b, turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Since: at, Handed: true, ServedAt: at}, {Monitor: b, Waiting: true, Since: at.Add(time.Hour)}}},
		{name: "an action handed out comes back only when asked for", turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Since: at, Handed: true, ServedAt: at}}},
		{name: "handed out again: least recently served first", handed: true, want: b, turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Since: at, Handed: true, ServedAt: at.Add(time.Minute)},
			{Monitor: b, Waiting: true, Since: at.Add(time.Hour), Handed: true, ServedAt: at}}},
		{name: "quiet hours hold a question back", quiet: true, want: b, turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Asks: true, Since: at}, {Monitor: b, Waiting: true, Since: at.Add(time.Hour)}}},
		{name: "quiet hours with only a question", quiet: true, turns: []monitor.Turn{{Monitor: a, Waiting: true, Asks: true, Since: at}}},
		{name: "the lowest pull request of a stack first", want: c, turns: []monitor.Turn{
			{Monitor: a, Waiting: true, Since: at, Depth: 2}, {Monitor: b, Waiting: true, Since: at, Depth: 1}, {Monitor: c, Waiting: true, Since: at.Add(time.Hour)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Same(t, tt.want, nextTurn(tt.turns, tt.quiet, tt.handed))
		})
	}
}

package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTheNextTurnGoesToWhoWaitedLongestAndNoneStarves: of the actions not handed out yet, the
// oldest goes first (ties by id); one handed out comes back only when asked for (at a call's
// deadline), least recently handed out first; in quiet hours questions wait and tasks go on.
func TestTheNextTurnGoesToWhoWaitedLongestAndNoneStarves(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a, b, c := &monitor{id: "a/r#1"}, &monitor{id: "a/r#2"}, &monitor{id: "a/r#3"}
	tests := []struct {
		name          string
		turns         []turn
		quiet, handed bool
		want          *monitor
	}{
		{name: "nobody waits", turns: []turn{{m: a}, {m: b}}},
		{name: "the one waiting longest", want: b, turns: []turn{
			{m: a, waiting: true, since: at.Add(time.Minute)}, {m: b, waiting: true, since: at}, {m: c}}},
		{name: "a tie goes by id", want: a, turns: []turn{
			{m: b, waiting: true, since: at}, {m: a, waiting: true, since: at}}},
		{name: "an action handed out waits behind any that was not", want: b, turns: []turn{
			{m: a, waiting: true, since: at, handed: true, servedAt: at}, {m: b, waiting: true, since: at.Add(time.Hour)}}},
		{name: "an action handed out comes back only when asked for", turns: []turn{
			{m: a, waiting: true, since: at, handed: true, servedAt: at}}},
		{name: "handed out again: least recently served first", handed: true, want: b, turns: []turn{
			{m: a, waiting: true, since: at, handed: true, servedAt: at.Add(time.Minute)},
			{m: b, waiting: true, since: at.Add(time.Hour), handed: true, servedAt: at}}},
		{name: "quiet hours hold a question back", quiet: true, want: b, turns: []turn{
			{m: a, waiting: true, asks: true, since: at}, {m: b, waiting: true, since: at.Add(time.Hour)}}},
		{name: "quiet hours with only a question", quiet: true, turns: []turn{{m: a, waiting: true, asks: true, since: at}}},
		{name: "the lowest pull request of a stack first", want: c, turns: []turn{
			{m: a, waiting: true, since: at, depth: 2}, {m: b, waiting: true, since: at, depth: 1}, {m: c, waiting: true, since: at.Add(time.Hour)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Same(t, tt.want, nextTurn(tt.turns, tt.quiet, tt.handed))
		})
	}
}

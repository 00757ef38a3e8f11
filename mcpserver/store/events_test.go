package store_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

func storeEvent(summary string) store.Event {
	return store.Event{Kind: store.EventPoll, Summary: summary}
}

// eventLines reads a log file's raw lines, checking that each is one JSON object.
func eventLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	var out []map[string]any
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "line %q", sc.Text())
		out = append(out, m)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestAppendAndRead(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	at := t0.Add(-time.Minute)
	require.NoError(t, f.Append(monitorID, store.Event{At: at, Kind: store.EventAction, Summary: "execute rebase", Data: map[string]any{"task": "rebase"}}))
	f.clock.Advance(time.Second)
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventAnswer, Summary: "line one\nline two"}))

	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, at, events[0].At)
	assert.Equal(t, store.EventAction, events[0].Kind)
	assert.Equal(t, map[string]any{"task": "rebase"}, events[0].Data)
	assert.Equal(t, t0.Add(time.Second), events[1].At, "a zero At is the store's clock")
	assert.Equal(t, "line one\nline two", events[1].Summary)
	assert.Nil(t, events[1].Data)

	lines := eventLines(t, filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl"))
	require.Len(t, lines, 2, "one line per event")
	assert.Equal(t, "answer", lines[1]["kind"])

	none, err := f.Events("acme/widgets#99")
	require.NoError(t, err)
	assert.Empty(t, none)
}

// A step's typed fields are written as named JSON fields and read back as written; a line from
// before they existed reads with none, and an event that is not a step writes none of them.
func TestTypedFieldsRoundTripAndOldLinesReadWithout(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	step := store.Event{At: t0, Kind: store.EventAnswer, Summary: "user_chose rebase → execute at conflict_rebasing",
		Input: "event", AgentEvent: "user_chose", Choice: "rebase", Answered: &store.QuestionRef{ID: "merge_conflict", Seq: 3},
		Action: "execute", Node: "conflict_rebasing", Task: "rebase"}
	work := store.Event{At: t0, Kind: store.EventGitHub, Summary: "resolve the thread",
		Outcome: &store.WorkOutcome{Work: "resolve_thread", Error: "GitHub refused"}}
	note := store.Event{At: t0, Kind: store.EventLifecycle, Summary: "started"}
	for _, e := range []store.Event{step, work, note} {
		require.NoError(t, f.Append(monitorID, e))
	}
	path := filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl")
	old := `{"at":"2026-11-20T09:00:00Z","kind":"poll","summary":"poll: ci_pending → polling at polling","data":{"node":"polling"}}` + "\n"
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = file.WriteString(old)
	require.NoError(t, errors.Join(err, file.Close()))

	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.Len(t, events, 4)
	assert.Equal(t, step, events[0])
	assert.True(t, events[0].IsStep())
	assert.Equal(t, work, events[1])
	assert.Equal(t, note, events[2])
	assert.Equal(t, store.Event{At: t0, Kind: store.EventPoll, Summary: "poll: ci_pending → polling at polling",
		Data: map[string]any{"node": "polling"}}, events[3])
	assert.False(t, events[3].IsStep(), "an old line names its node only in its summary and data")

	lines := eventLines(t, path)
	assert.Equal(t, map[string]any{"id": "merge_conflict", "seq": float64(3)}, lines[0]["answered"])
	assert.Equal(t, "user_chose", lines[0]["event"])
	assert.Equal(t, map[string]any{"work": "resolve_thread", "ok": false, "error": "GitHub refused"}, lines[1]["outcome"])
	assert.Equal(t, map[string]any{"at": "2026-11-20T09:00:00Z", "kind": "lifecycle", "summary": "started"}, lines[2],
		"an event that is not a step carries no step fields")
}

func TestConcurrentAppendsDoNotInterleave(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	const writers, each = 20, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// Long lines make a torn write visible.
				e := store.Event{Kind: store.EventPoll, Summary: fmt.Sprintf("%d/%d", w, i), Data: map[string]any{"pad": strings.Repeat("x", 2000+w)}}
				errs <- f.Append(monitorID, e)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	lines := eventLines(t, filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl"))
	require.Len(t, lines, writers*each)
	seen := map[string]bool{}
	for _, l := range lines {
		s, _ := l["summary"].(string)
		assert.False(t, seen[s], "duplicate %s", s)
		seen[s] = true
	}
	assert.Len(t, seen, writers*each)
}

func TestEventLogRotates(t *testing.T) {
	const limit = 4 << 10
	f := newFixture(t, store.WithEventLogLimit(limit))
	f.claim(t, monitorID)
	const n = 100 // about 8 KiB of events per 80: several rotations
	for i := range n {
		require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventPoll, Summary: fmt.Sprintf("poll %03d %s", i, strings.Repeat(".", 60))}))
	}
	current := filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl")
	rotated := current + ".1"
	for _, p := range []string{current, rotated} {
		info, err := os.Stat(p)
		require.NoError(t, err)
		assert.LessOrEqual(t, info.Size(), int64(limit), p)
		eventLines(t, p)
	}
	assert.Len(t, f.filesWith(t, ".events.jsonl"), 2, "one rotated log is kept")

	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Less(t, len(events), n, "the oldest are gone")
	first := n - len(events)
	for i, e := range events {
		assert.Contains(t, e.Summary, fmt.Sprintf("poll %03d ", first+i), "in order, none missing")
	}
}

func TestEventsNeverLeakTheToken(t *testing.T) {
	const secret = "ghp_s3cr3tT0kenValue1234567890"
	f := newFixture(t)
	f.claim(t, monitorID)
	type request struct {
		URL   string         `json:"url"`
		Token ghclient.Token `json:"token"`
	}
	token := ghclient.NewToken(secret)
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventGitHub, Summary: "request", Data: request{URL: "https://api.github.com/", Token: token}}))
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventGitHub, Summary: "token", Data: map[string]any{"token": token, "ptr": &token}}))

	raw, err := os.ReadFile(filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), secret)
	assert.Equal(t, 3, strings.Count(string(raw), "[REDACTED]"))
	assert.NotContains(t, f.logs.String(), secret)
}

func TestOversizedAndUnmarshalableEvents(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	huge := strings.Repeat("log line\n", 200_000) // ~1.8 MB
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventError, Summary: strings.Repeat("é", 5000), Data: huge}))
	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.Len(t, events, 1, "logged without its data")
	assert.Contains(t, events[0].Data, "omitted")
	assert.Less(t, len(events[0].Summary), 5000)

	err = f.Append(monitorID, store.Event{Kind: store.EventError, Data: make(chan int)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), monitorID)
}

func TestEventsSkipATornLine(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Append(monitorID, storeEvent("whole")))
	path := filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl")
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = file.WriteString(`{"at":"2026-11-20T09:00:00Z","kind":"po`)
	require.NoError(t, err)
	require.NoError(t, file.Close())

	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.Len(t, events, 1)
	assert.Equal(t, "whole", events[0].Summary)
	assert.Contains(t, f.logs.String(), "skipped")
}

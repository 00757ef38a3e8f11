package store_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// TestAnEventLineAtTheSizeBound: an event whose JSON is one byte under maxEventBytes keeps its data
// (its line, newline included, is exactly the bound); at the bound the data is dropped, and a
// summary of exactly maxSummaryBytes is kept whole.
func TestAnEventLineAtTheSizeBound(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	summary := strings.Repeat("s", store.MaxSummaryBytes)
	event := func(n int) store.Event {
		return store.Event{At: t0, Kind: store.EventAction, Summary: summary, Data: strings.Repeat("d", n)}
	}
	empty, err := json.Marshal(event(0))
	require.NoError(t, err)
	fits := store.MaxEventBytes - 1 - len(empty)

	require.NoError(t, f.Append(monitorID, event(fits)))
	require.NoError(t, f.Append(monitorID, event(fits+1)))
	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, strings.Repeat("d", fits), events[0].Data, "one byte under the bound: kept")
	assert.Equal(t, map[string]any{"omitted": "1048576 bytes of event, over the 1048576-byte limit"}, events[1].Data, "at the bound: dropped")
	assert.Equal(t, summary, events[1].Summary, "a summary of exactly the summary bound is kept whole")
}

func TestTheEventLogRotatesOnlyPastItsLimit(t *testing.T) {
	line := store.Event{At: t0, Kind: store.EventAction, Summary: "ten bytes."}
	one, err := json.Marshal(line)
	require.NoError(t, err)
	size := int64(len(one) + 1)
	name := store.FileName(monitorID)

	t.Run("two lines that fill the limit exactly stay in one file", func(t *testing.T) {
		f := newFixture(t, store.WithEventLogLimit(2*size))
		f.claim(t, monitorID)
		require.NoError(t, f.Append(monitorID, line))
		require.NoError(t, f.Append(monitorID, line))
		assert.NoFileExists(t, filepath.Join(f.dir, name+".events.jsonl.1"))
		require.NoError(t, f.Append(monitorID, line))
		assert.FileExists(t, filepath.Join(f.dir, name+".events.jsonl.1"), "the third passes it")
	})
	t.Run("a line longer than the limit in an empty log is written, not rotated", func(t *testing.T) {
		f := newFixture(t, store.WithEventLogLimit(size/2))
		f.claim(t, monitorID)
		require.NoError(t, f.Append(monitorID, line))
		assert.NoFileExists(t, filepath.Join(f.dir, name+".events.jsonl.1"))
		events, err := f.Events(monitorID)
		require.NoError(t, err)
		assert.Len(t, events, 1)
	})
}

func TestACleanEventLogReadsWithoutAWarning(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventAction, Summary: "one"}))
	events, err := f.Events(monitorID)
	require.NoError(t, err)
	assert.Len(t, events, 1)
	assert.NotContains(t, f.logs.String(), "skipped unreadable")
}

package store_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
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

// TestTheGateAndSpendFilesAtTheSizeBound: like a record, a rate-limit or spend file of exactly
// maxRecordBytes is read, and one byte more is refused as larger than any this store writes.
func TestTheGateAndSpendFilesAtTheSizeBound(t *testing.T) {
	pad := func(t *testing.T, path string, extra int) {
		t.Helper()
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(data, strings.Repeat(" ", store.MaxRecordBytes-len(data)+extra)...), 0o600))
	}
	t.Run("ratelimit.json", func(t *testing.T) {
		f := newFixture(t)
		gate := f.Gate("https://api.github.com")
		require.NoError(t, gate.SaveGate(map[string]ghclient.Hold{ghclient.ScopeToken: {Until: t0.Add(time.Hour), Reason: "x"}}))
		path := filepath.Join(f.dir, "ratelimit.json")
		pad(t, path, 0)
		got, err := gate.LoadGate()
		require.NoError(t, err, "exactly the bound")
		assert.Len(t, got, 1)
		pad(t, path, 1)
		_, err = gate.LoadGate()
		assert.ErrorContains(t, err, "larger than any this store writes")
	})
	t.Run("spend.json", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, f.Spend("https://api.github.com/").SaveSpend(store.Spend{Points: 1, UpdatedAt: t0}))
		path := filepath.Join(f.dir, "spend.json")
		pad(t, path, 0)
		all, err := store.ReadSpend(f.dir)
		require.NoError(t, err, "exactly the bound")
		assert.Len(t, all, 1)
		pad(t, path, 1)
		_, err = store.ReadSpend(f.dir)
		assert.ErrorContains(t, err, "larger than any this store writes")
	})
}

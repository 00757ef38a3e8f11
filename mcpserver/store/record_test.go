package store_test

import (
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

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

const monitorID = "acme/widgets#7"

var ref7 = prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}

// position drives a real machine to a rich position: asked about a merge conflict, the user
// chose to rebase, and the rebase task is in progress with its HEAD snapshot.
func position(t *testing.T, id string) statemachine.Position {
	t.Helper()
	m := statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{ID: id, Ref: ref7, Title: "Add retries"})
	now := t0
	step := func(in statemachine.Input) statemachine.Action {
		t.Helper()
		now = now.Add(time.Minute)
		act, err := m.Step(now, in)
		require.NoError(t, err)
		return act
	}
	require.Equal(t, statemachine.ActionPolling, step(statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{})).Kind)

	head := strings.Repeat("c1", 20)
	snap := prstatus.Snapshot{
		Ref: ref7, ID: "PR_7", Title: "Add retries", URL: "https://github.com/acme/widgets/pull/7",
		Author: prstatus.Actor{Login: "dev"}, Viewer: "dev", State: prstatus.StateOpen,
		HeadRef: "retries", BaseRef: "main", HeadOID: head, Mergeable: prstatus.MergeableConflict,
		Commits: []prstatus.Commit{{OID: head, AuthoredDate: t0, CommittedDate: t0, Headline: "retry", ParentCount: 1}},
		Checks:  []prstatus.Check{{Kind: prstatus.KindCheckRun, Name: "test", Status: "COMPLETED", Conclusion: "SUCCESS"}},
	}
	act := step(statemachine.PollInput(prstatus.Derive(&snap, now)))
	require.Equal(t, statemachine.ActionAskUser, act.Kind)
	act = step(statemachine.ChoiceInput(elicitation.Rebase))
	require.Equal(t, statemachine.ActionExecute, act.Kind)
	pos := m.Position()
	require.NotNil(t, pos.Task)
	require.Equal(t, head, pos.Task.HeadSnapshot)
	return pos
}

func record(t *testing.T, id string) store.Record {
	t.Helper()
	return store.Record{
		MonitorID: id, Ref: ref7, API: "https://api.github.com/",
		CreatedAt: t0.Add(-time.Hour), Position: position(t, id),
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// A position an older build saved is kept for statemachine.Restore to migrate: a user who
// upgrades with a monitor mid-flow keeps their place.
func TestLoadKeepsAnOlderPositionForRestoreToMigrate(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	rec := record(t, monitorID)
	rec.Position.Version = statemachine.OldestPositionVersion
	require.NoError(t, f.Save(monitorID, rec))
	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok, "not set aside")
	assert.Equal(t, statemachine.OldestPositionVersion, got.Position.Version)
}

func TestSaveLoadRoundTrip(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	rec := record(t, monitorID)

	require.NoError(t, f.Save(monitorID, rec))
	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok)

	want := rec
	want.Schema = store.RecordSchema
	want.UpdatedAt = t0
	assert.JSONEq(t, jsonOf(t, want), jsonOf(t, got))
	assert.JSONEq(t, jsonOf(t, rec.Position), jsonOf(t, got.Position), "the position comes back exactly")
	assert.True(t, rec.CreatedAt.Equal(got.CreatedAt))

	m, err := statemachine.Restore(statemachine.DefaultConfig(), got.Position)
	require.NoError(t, err, "the state machine resumes from the loaded position")
	assert.Equal(t, statemachine.ActionExecute, m.Pending().Kind)

	// A second save replaces the first and moves UpdatedAt, not CreatedAt.
	f.clock.Advance(time.Minute)
	got.Stopped, got.StoppedReason = true, "merged"
	require.NoError(t, f.Save(monitorID, got))
	again, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, again.Stopped)
	assert.Equal(t, "merged", again.StoppedReason)
	assert.Equal(t, t0.Add(time.Minute), again.UpdatedAt)
	assert.True(t, rec.CreatedAt.Equal(again.CreatedAt))
}

func TestSaveFillsInTheStoresFields(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	rec := record(t, monitorID)
	rec.MonitorID, rec.CreatedAt = "", time.Time{}
	require.NoError(t, f.Save(monitorID, rec))
	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, store.RecordSchema, got.Schema)
	assert.Equal(t, monitorID, got.MonitorID)
	assert.Equal(t, t0, got.CreatedAt)
	assert.Equal(t, t0, got.UpdatedAt)
}

func TestSaveRefusesWhatLoadWouldSetAside(t *testing.T) {
	tests := []struct {
		name   string
		change func(*store.Record)
		want   string
	}{
		{"another monitor's record", func(r *store.Record) { r.MonitorID = "acme/widgets#8" }, `"acme/widgets#8"`},
		{"another monitor's record and position", func(r *store.Record) {
			r.MonitorID, r.Position.Monitor.ID = "acme/widgets#8", "acme/widgets#8"
		}, `the record is monitor "acme/widgets#8"'s`},
		{"another monitor's position", func(r *store.Record) { r.Position.Monitor.ID = "acme/widgets#8" }, `position is monitor "acme/widgets#8"`},
		{"a future schema", func(r *store.Record) { r.Schema = store.RecordSchema + 1 }, "schema 2"},
		{"no position", func(r *store.Record) { r.Position = statemachine.Position{} }, "position version 0"},
		{"a future position", func(r *store.Record) { r.Position.Version++ }, fmt.Sprintf("position version %d", statemachine.PositionVersion+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.claim(t, monitorID)
			rec := record(t, monitorID)
			tt.change(&rec)
			err := f.Save(monitorID, rec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, f.filesWith(t, ".json"), "nothing written")
		})
	}
}

func TestWritesNeedTheClaim(t *testing.T) {
	f := newFixture(t)
	rec := record(t, monitorID)
	ops := map[string]func() error{
		"save":      func() error { return f.Save(monitorID, rec) },
		"load":      func() error { _, _, err := f.Load(monitorID); return err },
		"set aside": func() error { return f.SetAside(monitorID, "test") },
		"append":    func() error { return f.Append(monitorID, store.Event{Kind: store.EventPoll}) },
	}
	for name, op := range ops {
		assert.ErrorIs(t, op(), store.ErrNotClaimed, "%s before the claim", name)
	}
	c := f.claim(t, monitorID)
	for name, op := range ops {
		assert.NoError(t, op(), "%s under the claim", name)
	}
	require.NoError(t, c.Release())
	require.NoError(t, c.Release(), "a second release is harmless")
	for name, op := range ops {
		assert.ErrorIs(t, op(), store.ErrNotClaimed, "%s after the release", name)
	}
}

func TestLoadWithoutARecord(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, store.Record{}, got)
}

func TestCorruptRecordsAreSetAside(t *testing.T) {
	valid := func(t *testing.T, change func(map[string]any)) []byte {
		t.Helper()
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(jsonOf(t, func() store.Record {
			r := record(t, monitorID)
			r.Schema = store.RecordSchema
			return r
		}())), &m))
		change(m)
		return []byte(jsonOf(t, m))
	}
	tests := []struct {
		name   string
		data   func(t *testing.T) []byte
		reason string
	}{
		{"garbage", func(*testing.T) []byte { return []byte("\x00\xffnot json at all") }, "not a valid record"},
		{"empty", func(*testing.T) []byte { return nil }, "empty file"},
		{"blank", func(*testing.T) []byte { return []byte(" \n\t") }, "empty file"},
		{"truncated", func(t *testing.T) []byte { b := valid(t, func(map[string]any) {}); return b[:len(b)/2] }, "not a valid record"},
		{"trailing data", func(t *testing.T) []byte { return append(valid(t, func(map[string]any) {}), "{}"...) }, "not a valid record"},
		{"a JSON array", func(*testing.T) []byte { return []byte("[1,2]") }, "not a valid record"},
		{"a wrongly typed field", func(t *testing.T) []byte {
			return valid(t, func(m map[string]any) { m["stopped"] = "yes" })
		}, "not a valid record"},
		{"another monitor's record", func(t *testing.T) []byte {
			return valid(t, func(m map[string]any) {
				m["monitor_id"] = "acme/widgets#8"
				m["position"].(map[string]any)["monitor"].(map[string]any)["id"] = "acme/widgets#8"
			})
		}, `monitor "acme/widgets#8"`},
		{"another monitor's position", func(t *testing.T) []byte {
			return valid(t, func(m map[string]any) {
				m["position"].(map[string]any)["monitor"].(map[string]any)["id"] = "acme/widgets#8"
			})
		}, `position is monitor "acme/widgets#8"`},
		{"no monitor id", func(t *testing.T) []byte { return valid(t, func(m map[string]any) { delete(m, "monitor_id") }) }, "no monitor id"},
		{"a future schema", func(t *testing.T) []byte { return valid(t, func(m map[string]any) { m["schema"] = 2 }) }, "record schema 2"},
		{"no schema", func(t *testing.T) []byte { return valid(t, func(m map[string]any) { delete(m, "schema") }) }, "record schema 0"},
		{"a future position version", func(t *testing.T) []byte {
			return valid(t, func(m map[string]any) { m["position"].(map[string]any)["version"] = 99 })
		}, "position version 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.claim(t, monitorID)
			path := filepath.Join(f.dir, store.FileName(monitorID)+".json")
			data := tt.data(t)
			require.NoError(t, os.WriteFile(path, data, 0o600))

			got, ok, err := f.Load(monitorID)
			require.NoError(t, err, "a corrupt record is not an error")
			assert.False(t, ok, "the monitor starts fresh")
			assert.Equal(t, store.Record{}, got)

			assert.NoFileExists(t, path)
			aside := filepath.Join(f.dir, store.FileName(monitorID)+".json.corrupt-20261120T090000Z")
			kept, err := os.ReadFile(aside)
			require.NoError(t, err, "the record is kept under a new name; files: %v", f.files(t))
			assert.Equal(t, string(data), string(kept), "unchanged")
			assert.Contains(t, f.logs.String(), "level=WARN msg=\"store: set aside")

			events, err := f.Events(monitorID)
			require.NoError(t, err)
			require.Len(t, events, 1, "the event log notes it")
			assert.Equal(t, store.EventLifecycle, events[0].Kind)
			assert.Contains(t, events[0].Summary, tt.reason)

			// The monitor carries on: a fresh record saves and loads.
			require.NoError(t, f.Save(monitorID, record(t, monitorID)))
			_, ok, err = f.Load(monitorID)
			require.NoError(t, err)
			assert.True(t, ok)
		})
	}
}

func TestSetAside(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.SetAside(monitorID, "nothing there"), "no record: nothing to do")
	assert.Empty(t, f.filesWith(t, ".corrupt-"))

	// Restore refuses a position that parses (here: awaiting the user without a question).
	rec := record(t, monitorID)
	rec.Position.Node = statemachine.Node("awaiting_user/nonsense")
	require.NoError(t, f.Save(monitorID, rec))
	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok)
	_, err = statemachine.Restore(statemachine.DefaultConfig(), got.Position)
	require.Error(t, err)

	require.NoError(t, f.SetAside(monitorID, err.Error()))
	_, ok, err = f.Load(monitorID)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Contains(t, f.logs.String(), "nonsense")

	// Set aside twice in the same second: both are kept.
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.NoError(t, f.SetAside(monitorID, "again"))
	name := store.FileName(monitorID)
	assert.ElementsMatch(t, []string{
		name + ".json.corrupt-20261120T090000Z",
		name + ".json.corrupt-20261120T090000Z-2",
	}, f.filesWith(t, ".corrupt-"))
}

func TestList(t *testing.T) {
	f := newFixture(t)
	ids := []string{"acme/widgets#9", "acme/widgets#7", "ghe.corp/acme/gadgets#1"}
	for _, id := range ids {
		c := f.claim(t, id)
		require.NoError(t, f.Save(id, record(t, id)))
		require.NoError(t, f.Append(id, store.Event{Kind: store.EventLifecycle, Summary: "saved"}))
		if id != "acme/widgets#7" {
			require.NoError(t, c.Release())
		}
	}
	// A corrupt record that nobody holds, one that this store holds, files that are not records.
	bad := store.FileName("acme/broken#1")
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, bad+".json"), []byte("{"), 0o600))
	held := "acme/held#2"
	f.claim(t, held)
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, store.FileName(held)+".json"), []byte("{"), 0o600))
	misplaced := store.FileName("acme/elsewhere#3")
	rec := record(t, "acme/widgets#9")
	rec.Schema = store.RecordSchema
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, misplaced+".json"), []byte(jsonOf(t, rec)), 0o600))
	for _, junk := range []string{"." + store.FileName("acme/widgets#9") + ".json.tmp-123", "notes.json", "README"} {
		require.NoError(t, os.WriteFile(filepath.Join(f.dir, junk), []byte("{"), 0o600))
	}
	require.NoError(t, os.Mkdir(filepath.Join(f.dir, store.FileName("acme/dir#4")+".json"), 0o700))

	got, err := f.List()
	require.NoError(t, err)
	var listed []string
	for _, r := range got {
		listed = append(listed, r.MonitorID)
	}
	assert.Equal(t, []string{"acme/widgets#7", "acme/widgets#9", "ghe.corp/acme/gadgets#1"}, listed)

	aside := f.filesWith(t, ".corrupt-")
	assert.Len(t, aside, 3, "the broken, held and misplaced records are set aside: %v", aside)
	for _, name := range []string{bad, store.FileName(held), misplaced} {
		assert.NoFileExists(t, filepath.Join(f.dir, name+".json"))
	}
	assert.FileExists(t, filepath.Join(f.dir, "notes.json"), "files that are not ours are left alone")

	// The momentary claim List took on the broken record is gone.
	f.claim(t, "acme/broken#1")
}

func TestListLeavesAnotherProcesssRecord(t *testing.T) {
	f := newFixture(t)
	id := "acme/theirs#5"
	h := startHolder(t, f.dir, id)
	path := filepath.Join(f.dir, store.FileName(id)+".json")
	require.NoError(t, os.WriteFile(path, []byte("{"), 0o600))

	got, err := f.List()
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.FileExists(t, path, "the holder's record is its business")
	assert.Empty(t, f.filesWith(t, ".corrupt-"))
	assert.Contains(t, f.logs.String(), "another")
	h.exit(t)
}

func TestConcurrentSavesAndLoads(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	rec := record(t, monitorID)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Go(func() {
			r := rec
			r.StoppedReason = strings.Repeat("x", i)
			errs <- f.Save(monitorID, r)
		})
		wg.Go(func() {
			_, _, err := f.Load(monitorID)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Empty(t, f.filesWith(t, ".corrupt-"), "no save was ever seen torn")
	assert.Empty(t, f.filesWith(t, ".tmp-"))
}

func TestLoadReportsReadErrors(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	// A directory where the record should be: it cannot be read, and it is not set aside.
	path := filepath.Join(f.dir, store.FileName(monitorID)+".json")
	require.NoError(t, os.Mkdir(path, 0o700))
	_, _, err := f.Load(monitorID)
	require.Error(t, err)
	assert.False(t, errors.Is(err, store.ErrNotClaimed))
	assert.DirExists(t, path)
}

// Peek reads what another (or an earlier) process saved without claiming the monitor, and leaves
// an unusable record for Load to set aside under the claim.
func TestPeekReadsWithoutTheClaim(t *testing.T) {
	f := newFixture(t)
	c := f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.NoError(t, c.Release())

	r, ok, err := f.Peek("Acme/Widgets#7")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, monitorID, r.MonitorID)
	assert.Equal(t, statemachine.NodeConflictRebasing, r.Position.Node)
	c = f.claim(t, monitorID) // Peek took no claim: the monitor is free
	require.NoError(t, c.Release())

	_, ok, err = f.Peek("acme/other#1")
	require.NoError(t, err)
	assert.False(t, ok, "no record")
	_, _, err = f.Peek("")
	require.Error(t, err)

	path := filepath.Join(f.dir, store.FileName(monitorID)+".json")
	require.NoError(t, os.WriteFile(path, []byte(`{"schema":1,`), 0o600))
	_, ok, err = f.Peek(monitorID)
	require.NoError(t, err)
	assert.False(t, ok, "an unusable record reads as absent")
	assert.FileExists(t, path, "and is left where it is")
}

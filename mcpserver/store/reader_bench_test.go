package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// thousandMonitors fills a directory with 1,000 records (copies of one real record under other
// ids) and an event log of 200 lines each, as a busy server leaves it.
func thousandMonitors(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	st, err := store.Open(dir, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = st.Close() })
	_, err = st.Claim(monitorID)
	require.NoError(b, err)
	require.NoError(b, st.Save(monitorID, record(&testing.T{}, monitorID))) // record's helpers need a *testing.T; they do not fail here
	data, err := os.ReadFile(filepath.Join(dir, store.FileName(monitorID)+".json"))
	require.NoError(b, err)
	var log strings.Builder
	for i := range 200 {
		fmt.Fprintf(&log, `{"at":"2026-11-20T09:00:00Z","kind":"poll","summary":"poll: none → polling at polling %d","data":{"node":"polling"}}`+"\n", i)
	}
	for i := range 1000 {
		id := fmt.Sprintf("acme/widgets#%d", 1000+i)
		rec := strings.ReplaceAll(string(data), monitorID, id)
		name := filepath.Join(dir, store.FileName(id))
		require.NoError(b, os.WriteFile(name+".json", []byte(rec), 0o600))
		require.NoError(b, os.WriteFile(name+".events.jsonl", []byte(log.String()), 0o600))
	}
	return dir
}

// BenchmarkReaderFirstRead is `prmonitor status` on 1,000 monitors: every record and the end of
// every log read once.
func BenchmarkReaderFirstRead(b *testing.B) {
	dir := thousandMonitors(b)
	b.ResetTimer()
	for b.Loop() {
		saved, err := store.NewReader(dir, 50).Read()
		if err != nil || len(saved) != 1001 {
			b.Fatalf("%d monitors, %v", len(saved), err)
		}
	}
}

// BenchmarkReaderReread is one refresh of the live view on 1,000 monitors when nothing changed:
// a directory listing and a stat of each monitor's files.
func BenchmarkReaderReread(b *testing.B) {
	dir := thousandMonitors(b)
	r := store.NewReader(dir, 50)
	_, err := r.Read()
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}

package store

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

const (
	githubAPI = "https://api.github.com/"
	gheAPI    = "https://ghe.example/api/v3/"
)

// fullFingerprint sets every field of a fingerprint but Missing (never saved), so that a field
// added to ghclient.Fingerprint and not to the file fails the round trip.
func fullFingerprint(t *testing.T, n int) ghclient.Fingerprint {
	t.Helper()
	var f ghclient.Fingerprint
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		if v.Type().Field(i).Name == "Missing" {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(fmt.Sprintf("%s-%d", v.Type().Field(i).Name, n))
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Int:
			fv.SetInt(int64(40 + n))
		default:
			if fv.Type() == reflect.TypeFor[time.Time]() {
				fv.Set(reflect.ValueOf(time.Date(2026, 11, 26, 8, n, 0, 0, time.UTC)))
				continue
			}
			t.Fatalf("fingerprint field %s of kind %s: teach watched.go and this test", v.Type().Field(i).Name, fv.Kind())
		}
	}
	return f
}

func openStore(t *testing.T, at time.Time) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, slog.New(slog.DiscardHandler), WithNow(func() time.Time { return at }))
	require.NoError(t, err)
	return s, dir
}

func TestWhatTheWatcherSawSurvivesARoundTripPerAPI(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s, dir := openStore(t, at)
	a := prstatus.PRRef{Owner: "acme", Repo: "api", Number: 7}
	b := prstatus.PRRef{Owner: "acme", Repo: "web", Number: 12}
	seen := map[prstatus.PRRef]watch.Seen{
		a: {Fingerprint: fullFingerprint(t, 1), ReadAt: at.Add(-time.Minute), ChangedAt: at.Add(-3 * time.Minute), FollowUp: at.Add(-time.Minute)},
		b: {Fingerprint: fullFingerprint(t, 2), ReadAt: at.Add(-time.Hour)},
	}
	require.NoError(t, s.Seen(githubAPI).SaveSeen(seen))
	require.NoError(t, s.Seen(gheAPI).SaveSeen(map[prstatus.PRRef]watch.Seen{a: seen[b]}))

	got, err := s.Seen(githubAPI).LoadSeen()
	require.NoError(t, err)
	require.Len(t, got, 2)
	for ref, want := range seen {
		assert.Empty(t, want.Fingerprint.Changed(got[ref].Fingerprint), "%s", ref)
		assert.True(t, want.ReadAt.Equal(got[ref].ReadAt))
		assert.True(t, want.ChangedAt.Equal(got[ref].ChangedAt))
		assert.True(t, want.FollowUp.Equal(got[ref].FollowUp))
	}
	assert.True(t, got[b].ChangedAt.IsZero(), "no change seen stays zero")

	other, err := s.Seen(gheAPI).LoadSeen()
	require.NoError(t, err)
	assert.Empty(t, seen[b].Fingerprint.Changed(other[a].Fingerprint), "each API keeps its own")

	none, err := s.Seen("https://other/").LoadSeen()
	require.NoError(t, err)
	assert.Empty(t, none)

	fi, err := os.Stat(filepath.Join(dir, watchedFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestNoWatchedFileIsNothingSeen(t *testing.T) {
	s, _ := openStore(t, time.Now())
	got, err := s.Seen(githubAPI).LoadSeen()
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestACorruptOrForeignWatchedFileIsAnErrorAndTheNextSaveReplacesIt(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	ref := prstatus.PRRef{Owner: "acme", Repo: "api", Number: 7}
	for _, tt := range []struct {
		name, content, err string
	}{
		{"torn", `{"schema":1,"apis":{"https://api.git`, "read watched.json"},
		{"another schema", `{"schema":99,"apis":{}}`, "schema 99"},
		{"no schema", `{"apis":{}}`, "schema 0"},
		{"not an object", `[1,2,3]`, "read watched.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, at)
			require.NoError(t, os.WriteFile(filepath.Join(dir, watchedFile), []byte(tt.content), 0o600))
			_, err := s.Seen(githubAPI).LoadSeen()
			require.ErrorContains(t, err, tt.err)

			require.NoError(t, s.Seen(githubAPI).SaveSeen(map[prstatus.PRRef]watch.Seen{ref: {Fingerprint: fullFingerprint(t, 1), ReadAt: at}}))
			got, err := s.Seen(githubAPI).LoadSeen()
			require.NoError(t, err)
			assert.Len(t, got, 1)
		})
	}
}

func TestKeysThisStoreDoesNotWriteAreSkipped(t *testing.T) {
	s, dir := openStore(t, time.Now())
	content := `{"schema":1,"apis":{"` + githubAPI + `":{"not a ref":{"read_at":"2026-11-26T09:00:00Z"},"acme/api#7":{"read_at":"2026-11-26T09:00:00Z","fingerprint":{"head_oid":"abc"}}}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, watchedFile), []byte(content), 0o600))
	got, err := s.Seen(githubAPI).LoadSeen()
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "abc", got[prstatus.PRRef{Owner: "acme", Repo: "api", Number: 7}].Fingerprint.HeadOID)
}

func TestASaveKeepsThePullRequestsItDoesNotNameAndStaysBounded(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s, _ := openStore(t, at)
	ref := func(n int) prstatus.PRRef { return prstatus.PRRef{Owner: "acme", Repo: "api", Number: n} }

	// Another process (or a watcher not handed these pull requests yet) saved 1 and 2.
	require.NoError(t, s.Seen(githubAPI).SaveSeen(map[prstatus.PRRef]watch.Seen{
		ref(1): {Fingerprint: fullFingerprint(t, 1), ReadAt: at.Add(-time.Hour)},
		ref(2): {Fingerprint: fullFingerprint(t, 2), ReadAt: at.Add(-WatchedMaxAge - time.Hour)},
	}))
	// This save names 3 and a missing 1: 1 is dropped, 2 is too old, 3 is kept.
	require.NoError(t, s.Seen(githubAPI).SaveSeen(map[prstatus.PRRef]watch.Seen{
		ref(1): {Fingerprint: ghclient.Fingerprint{Missing: true}, ReadAt: at},
		ref(3): {Fingerprint: fullFingerprint(t, 3), ReadAt: at},
	}))
	got, err := s.Seen(githubAPI).LoadSeen()
	require.NoError(t, err)
	assert.Len(t, got, 1)
	assert.Contains(t, got, ref(3))

	// Past MaxWatched, the pull requests read the longest ago go.
	many := map[prstatus.PRRef]watch.Seen{}
	for n := range MaxWatched + 10 {
		many[ref(100+n)] = watch.Seen{Fingerprint: fullFingerprint(t, 1), ReadAt: at.Add(-time.Duration(n) * time.Second)}
	}
	require.NoError(t, s.Seen(githubAPI).SaveSeen(many))
	got, err = s.Seen(githubAPI).LoadSeen()
	require.NoError(t, err)
	assert.Len(t, got, MaxWatched)
	assert.Contains(t, got, ref(3), "read at the newest time")
	assert.Contains(t, got, ref(100))
	assert.NotContains(t, got, ref(100+MaxWatched+9), "read the longest ago")
}

// BenchmarkSaveSeen is one save of what the watcher has seen of 1,000 pull requests: read the
// file back, merge, encode, write atomically (synced).
func BenchmarkSaveSeen(b *testing.B) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s, err := Open(b.TempDir(), nil, WithNow(func() time.Time { return at }))
	require.NoError(b, err)
	seen := map[prstatus.PRRef]watch.Seen{}
	for n := range 1000 {
		seen[prstatus.PRRef{Owner: "acme", Repo: fmt.Sprintf("repo%02d", n%20), Number: n + 1}] = watch.Seen{
			Fingerprint: ghclient.Fingerprint{
				UpdatedAt: at, HeadOID: "0123456789abcdef0123456789abcdef01234567", BaseOID: "89abcdef0123456789abcdef0123456789abcdef",
				State: "OPEN", Mergeable: "MERGEABLE", MergeStateStatus: "BLOCKED", ReviewDecision: "REVIEW_REQUIRED",
				TotalComments: 12, Rollup: "SUCCESS", Checks: "run:SUCCESS=4,status:SUCCESS=1",
			},
			ReadAt: at,
		}
	}
	for b.Loop() {
		require.NoError(b, s.Seen(githubAPI).SaveSeen(seen))
	}
	fi, err := os.Stat(filepath.Join(s.Dir(), watchedFile))
	require.NoError(b, err)
	b.ReportMetric(float64(fi.Size()), "file-bytes")
}

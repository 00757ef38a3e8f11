package store

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpendIsKeptPerAPIAndReadWithoutAStore(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	a := Spend{Budget: 0.25, WindowStart: at, Points: 40, Requests: 40, Limit: 5000, Remaining: 4900, ResetAt: at.Add(time.Hour), Cycle: 30 * time.Second, PRs: 12, UpdatedAt: at}
	b := a
	b.PRs = 3
	require.NoError(t, s.Spend("https://api.github.com/").SaveSpend(a))
	require.NoError(t, s.Spend("https://ghe.example/api/v3/").SaveSpend(b))

	got, ok, err := s.Spend("https://api.github.com/").LoadSpend()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, a, got)

	all, err := ReadSpend(dir)
	require.NoError(t, err)
	assert.Len(t, all, 2)
	assert.Equal(t, 3, all["https://ghe.example/api/v3/"].PRs)

	_, ok, err = s.Spend("https://other/").LoadSpend()
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestASpendFileOfAnotherSchemaIsAnErrorNotACrash(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, spendFile), []byte(`{"schema":99,"apis":{}}`), 0o600))
	_, err := ReadSpend(dir)
	assert.ErrorContains(t, err, "schema 99")
	empty := t.TempDir()
	all, err := ReadSpend(empty)
	require.NoError(t, err)
	assert.Empty(t, all)
}

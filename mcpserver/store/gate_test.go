package store_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

func TestRateLimitHoldsSurviveAReopenPerAPI(t *testing.T) {
	f := newFixture(t)
	const dotcom, ghes = "https://api.github.com", "https://ghe.example/api/v3"
	hour := ghclient.Hold{Until: t0.Add(time.Hour), Reason: "secondary rate limit"}
	require.NoError(t, f.Gate(dotcom).SaveGate(map[string]ghclient.Hold{ghclient.ScopeToken: hour}))
	require.NoError(t, f.Gate(ghes).SaveGate(map[string]ghclient.Hold{"graphql": {Until: t0.Add(time.Minute), Reason: "used up"}}))

	again := openFixture(t, f.dir)
	got, err := again.Gate(dotcom).LoadGate()
	require.NoError(t, err)
	assert.Equal(t, map[string]ghclient.Hold{ghclient.ScopeToken: hour}, got, "one API's holds are not another's")

	info, err := os.Stat(filepath.Join(f.dir, "ratelimit.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	// A gate built over the store holds requests back after the "restart".
	gate := ghclient.NewGate(again.Gate(dotcom), func() time.Time { return t0.Add(time.Minute) }, nil)
	h, held := gate.NotBefore("graphql")
	require.True(t, held)
	assert.Equal(t, hour.Until, h.Until)

	// Holds that are over are dropped on the next save; a save keeps a later hold another process wrote.
	again.clock.Advance(2 * time.Minute)
	require.NoError(t, again.Gate(dotcom).SaveGate(map[string]ghclient.Hold{ghclient.ScopeToken: {Until: t0.Add(30 * time.Minute)}}))
	got, err = again.Gate(dotcom).LoadGate()
	require.NoError(t, err)
	assert.Equal(t, hour.Until, got[ghclient.ScopeToken].Until)
	got, err = again.Gate(ghes).LoadGate()
	require.NoError(t, err)
	assert.Empty(t, got, "the minute-long hold is over")
}

func TestUnreadableRateLimitFileIsReplacedNotFatal(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "ratelimit.json"), []byte("{not json"), 0o600))
	_, err := f.Gate("https://api.github.com").LoadGate()
	require.Error(t, err)
	gate := ghclient.NewGate(f.Gate("https://api.github.com"), f.clock.Now, nil)
	_, held := gate.NotBefore("graphql")
	assert.False(t, held, "an unreadable file starts the gate open")
	gate.Hold(ghclient.ScopeToken, t0.Add(time.Hour), "x")
	got, err := f.Gate("https://api.github.com").LoadGate()
	require.NoError(t, err)
	assert.Len(t, got, 1)
}

package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeRefusesBadQuietHoursWithAUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--quiet-hours", "7pm-8am"}, "--quiet-hours"},
		{[]string{"serve", "--quiet-hours", "08:00-08:00"}, "same time"},
		{[]string{"serve", "--quiet-hours", "19:00-08:00", "--quiet-tz", "Mars/Olympus_Mons"}, "--quiet-tz \"Mars/Olympus_Mons\" is not a time zone"},
	} {
		res := runCLI(t, nil, tc.args...)
		assert.Equal(t, exitUsage, res.code, res.stderr)
		assert.Contains(t, res.stderr, tc.want)
		assert.Empty(t, res.stdout, "stdout belongs to the protocol")
	}
}

func TestQuietFlagsBuildHoursInTheNamedZone(t *testing.T) {
	q := quietFlags{window: "19:00-08:00", weekends: true, zone: "Europe/Berlin"}
	h, err := q.hours()
	require.NoError(t, err)
	assert.Equal(t, "19:00-08:00 and weekends (Europe/Berlin)", h.String())
	// Friday 20:00 in Berlin (19:00 UTC) is quiet until Monday 08:00 Berlin.
	until := h.Until(time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC))
	assert.Equal(t, "Mon 08:00 CET", until.Format("Mon 15:04 MST"))
}

func TestNoQuietFlagsMeanNeverQuiet(t *testing.T) {
	var q quietFlags
	h, err := q.hours()
	require.NoError(t, err)
	assert.False(t, h.Enabled())
}

func TestServeHelpListsTheQuietFlags(t *testing.T) {
	res := runCLI(t, nil, "serve", "--help")
	require.Equal(t, exitOK, res.code)
	for _, f := range []string{"--quiet-hours HH:MM-HH:MM", "--quiet-weekends", "--quiet-tz ZONE"} {
		assert.Contains(t, res.stdout, f)
	}
}

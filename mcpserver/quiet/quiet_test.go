package quiet

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones of the tests, whatever the machine has

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func TestParseWindowReadsClockTimesAndRefusesNonsense(t *testing.T) {
	for _, tc := range []struct {
		spec       string
		start, end int
		err        string
	}{
		{spec: "19:00-08:00", start: 19 * 60, end: 8 * 60},
		{spec: " 9:30 - 17:45 ", start: 9*60 + 30, end: 17*60 + 45},
		{spec: "22:00-24:00", start: 22 * 60, end: 24 * 60},
		{spec: "00:00-07:00", start: 0, end: 7 * 60},
		{spec: "19:00", err: "want HH:MM-HH:MM"},
		{spec: "7pm-8am", err: "not HH:MM"},
		{spec: "19:00-08", err: "not HH:MM"},
		{spec: "25:00-08:00", err: "hours run 00-23"},
		{spec: "19:60-08:00", err: "minutes run 00-59"},
		{spec: "24:00-08:00", err: "hours run 00-23"},
		{spec: "08:00-08:00", err: "same time"},
		{spec: "00:00-24:00", err: "same time"},
		{spec: "-1:00-08:00", err: "not HH:MM"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			start, end, err := ParseWindow(tc.spec)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrBadHours)
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, [2]int{tc.start, tc.end}, [2]int{start, end})
		})
	}
}

func TestTheZeroHoursAreNeverQuiet(t *testing.T) {
	var h Hours
	assert.False(t, h.Enabled())
	assert.True(t, h.Until(time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)).IsZero())
	h, err := New("", false, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, "none", h.String())
}

// TestUntilSaysWhenQuietEnds walks nights, weekends and DST changes. Times are wall clock in the
// hours' zone; want is empty when the moment is not quiet.
func TestUntilSaysWhenQuietEnds(t *testing.T) {
	type tc struct {
		name     string
		window   string
		weekends bool
		zone     string
		now      string // "2006-01-02 15:04" in the zone
		want     string // the same, or "" for not quiet; a trailing offset when it matters
	}
	cases := []tc{
		{"evening in an overnight window", "19:00-08:00", false, "UTC", "2026-11-25 21:00", "2026-11-26 08:00"},
		{"after midnight in an overnight window", "19:00-08:00", false, "UTC", "2026-11-26 03:00", "2026-11-26 08:00"},
		{"window start is quiet", "19:00-08:00", false, "UTC", "2026-11-25 19:00", "2026-11-26 08:00"},
		{"window end is not quiet", "19:00-08:00", false, "UTC", "2026-11-26 08:00", ""},
		{"the day is not quiet", "19:00-08:00", false, "UTC", "2026-11-26 12:00", ""},
		{"same-day window", "12:00-13:30", false, "UTC", "2026-11-26 12:15", "2026-11-26 13:30"},
		{"same-day window, outside", "12:00-13:30", false, "UTC", "2026-11-26 11:59", ""},
		{"window to midnight", "22:00-24:00", false, "UTC", "2026-11-26 23:00", "2026-11-27 00:00"},
		{"weekends only: saturday", "", true, "UTC", "2026-11-28 10:00", "2026-11-30 00:00"},
		{"weekends only: friday", "", true, "UTC", "2026-11-27 23:00", ""},
		// Friday night runs into the weekend, and the weekend into Monday morning.
		{"friday evening joins the weekend", "19:00-08:00", true, "UTC", "2026-11-27 20:00", "2026-11-30 08:00"},
		{"sunday joins monday's morning", "19:00-08:00", true, "UTC", "2026-11-29 15:00", "2026-11-30 08:00"},
		{"monday early morning", "19:00-08:00", true, "UTC", "2026-11-30 07:59", "2026-11-30 08:00"},
		{"friday day is not quiet", "19:00-08:00", true, "UTC", "2026-11-27 12:00", ""},
		{"a same-day window does not join the weekend", "12:00-13:00", true, "UTC", "2026-11-27 12:30", "2026-11-27 13:00"},
		// Europe/Berlin: spring forward 2026-03-29 02:00 CET → 03:00 CEST; fall back 2026-10-25 03:00 CEST → 02:00 CET.
		{"berlin: night across spring forward", "22:00-07:00", false, "Europe/Berlin", "2026-03-28 23:00", "2026-03-29 07:00 +0200"},
		{"berlin: night across fall back", "22:00-07:00", false, "Europe/Berlin", "2026-10-24 23:00", "2026-10-25 07:00 +0100"},
		{"berlin: window ending in the spring gap ends at the gap's end", "22:00-02:30", false, "Europe/Berlin", "2026-03-29 01:00", "2026-03-29 03:00 +0200"},
		{"berlin: window starting in the spring gap", "02:30-06:00", false, "Europe/Berlin", "2026-03-29 04:00", "2026-03-29 06:00 +0200"},
		{"berlin: weekend ends at monday's local midnight after the change", "", true, "Europe/Berlin", "2026-03-28 12:00", "2026-03-30 00:00 +0200"},
		// America/New_York: spring forward 2026-03-08 02:00 EST → 03:00 EDT; fall back 2026-11-01 02:00 EDT → 01:00 EST.
		{"new york: night across spring forward", "19:00-08:00", false, "America/New_York", "2026-03-07 20:00", "2026-03-08 08:00 -0400"},
		{"new york: night across fall back", "19:00-08:00", false, "America/New_York", "2026-10-31 20:00", "2026-11-01 08:00 -0500"},
		{"new york: weekend and nights across fall back", "19:00-08:00", true, "America/New_York", "2026-10-30 21:00", "2026-11-02 08:00 -0500"},
		{"new york: window ending in the spring gap", "23:00-02:15", false, "America/New_York", "2026-03-08 01:30", "2026-03-08 03:00 -0400"},
		{"new york: morning after fall back is not quiet", "19:00-08:00", false, "America/New_York", "2026-11-01 09:00", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := zone(t, c.zone)
			h, err := New(c.window, c.weekends, loc)
			require.NoError(t, err)
			now, err := time.ParseInLocation("2006-01-02 15:04", c.now, loc)
			require.NoError(t, err)
			got := h.Until(now)
			if c.want == "" {
				assert.True(t, got.IsZero(), "quiet until %v", got)
				return
			}
			want, err := time.ParseInLocation("2006-01-02 15:04 -0700", c.want, loc)
			if err != nil {
				want, err = time.ParseInLocation("2006-01-02 15:04", c.want, loc)
			}
			require.NoError(t, err)
			assert.True(t, want.Equal(got), "want %v, got %v", want, got)
			assert.Equal(t, loc, got.Location(), "the end is given in the hours' zone")
			assert.True(t, h.Until(got).IsZero(), "the end of quiet is not quiet")
		})
	}
}

func TestUntilReadsTheInstantInTheHoursZone(t *testing.T) {
	h, err := New("19:00-08:00", false, zone(t, "America/New_York"))
	require.NoError(t, err)
	// 02:00 UTC on a November Thursday is 21:00 the evening before in New York.
	got := h.Until(time.Date(2026, 11, 26, 2, 0, 0, 0, time.UTC))
	assert.Equal(t, "2026-11-26 08:00 EST", got.Format("2006-01-02 15:04 MST"))
	assert.Equal(t, "19:00-08:00 (America/New_York)", h.String())
}

func TestNewWithoutAZoneUsesLocalTime(t *testing.T) {
	h, err := New("19:00-08:00", true, nil)
	require.NoError(t, err)
	assert.Equal(t, time.Local, h.Location())
	assert.Contains(t, h.String(), "19:00-08:00 and weekends")
}

func TestNewRefusesABadWindow(t *testing.T) {
	_, err := New("8-19", false, time.UTC)
	assert.ErrorIs(t, err, ErrBadHours)
}

// Package quiet is the user's quiet hours: a nightly window (19:00-08:00, across midnight or
// not), whole weekends, or both, in one time zone. It answers one question, Until: is now quiet,
// and when does it end. It does no I/O and reads no clock; the caller passes the time.
package quiet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadHours is wrapped by every error of ParseHours.
var ErrBadHours = errors.New("quiet hours")

// Hours is a set of quiet times: a daily window and, optionally, weekends (all of Saturday and
// Sunday). The zero value is never quiet.
type Hours struct {
	// window is set when a daily window is; start and end are minutes after midnight, start != end.
	window     bool
	start, end int
	weekends   bool
	loc        *time.Location
}

// New builds quiet hours from a window spec ("" for none; see ParseWindow), whether weekends are
// quiet, and the time zone (nil: time.Local).
func New(window string, weekends bool, loc *time.Location) (Hours, error) {
	h := Hours{weekends: weekends, loc: loc}
	if h.loc == nil {
		h.loc = time.Local
	}
	if strings.TrimSpace(window) == "" {
		return h, nil
	}
	start, end, err := ParseWindow(window)
	if err != nil {
		return Hours{}, err
	}
	h.window, h.start, h.end = true, start, end
	return h, nil
}

// ParseWindow reads "HH:MM-HH:MM" (24-hour clock; 24:00 allowed as an end) into minutes after
// midnight. A start after the end is a window across midnight (19:00-08:00). An empty window
// (start equal to end) is an error: it is either never or always quiet, and neither is meant.
func ParseWindow(spec string) (start, end int, err error) {
	from, to, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0, 0, fmt.Errorf("%w: %q: want HH:MM-HH:MM, e.g. 19:00-08:00", ErrBadHours, spec)
	}
	if start, err = parseClock(from, false); err != nil {
		return 0, 0, fmt.Errorf("%w: start of %q: %w", ErrBadHours, spec, err)
	}
	if end, err = parseClock(to, true); err != nil {
		return 0, 0, fmt.Errorf("%w: end of %q: %w", ErrBadHours, spec, err)
	}
	if start == end%(24*60) {
		return 0, 0, fmt.Errorf("%w: %q starts and ends at the same time; give a window such as 19:00-08:00", ErrBadHours, spec)
	}
	return start, end, nil
}

// parseClock reads HH:MM (H:MM too) into minutes after midnight; 24:00 only when end.
func parseClock(s string, end bool) (int, error) {
	s = strings.TrimSpace(s)
	hh, mm, ok := strings.Cut(s, ":")
	if !ok || len(mm) != 2 || hh == "" || len(hh) > 2 {
		return 0, fmt.Errorf("%q is not HH:MM", s)
	}
	h, err1 := strconv.Atoi(hh)
	m, err2 := strconv.Atoi(mm)
	if err1 != nil || err2 != nil || h < 0 || m < 0 {
		return 0, fmt.Errorf("%q is not HH:MM", s)
	}
	switch {
	case m > 59:
		return 0, fmt.Errorf("%q: minutes run 00-59", s)
	case h == 24 && m == 0 && end:
		return 24 * 60, nil
	case h > 23:
		return 0, fmt.Errorf("%q: hours run 00-23", s)
	}
	return h*60 + m, nil
}

// Location is the time zone the hours are read in.
func (h Hours) Location() *time.Location {
	if h.loc == nil {
		return time.Local
	}
	return h.loc
}

// Enabled reports whether the hours are ever quiet.
func (h Hours) Enabled() bool { return h.window || h.weekends }

// String renders the hours for a log line or a status: "19:00-08:00 and weekends (Europe/Berlin)".
func (h Hours) String() string {
	var parts []string
	if h.window {
		parts = append(parts, fmt.Sprintf("%02d:%02d-%02d:%02d", h.start/60, h.start%60, h.end/60, h.end%60))
	}
	if h.weekends {
		parts = append(parts, "weekends")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " and ") + " (" + h.Location().String() + ")"
}

// maxSpan bounds the walk of Until: quiet runs at most a weekend plus a night on either side.
const maxSpan = 8

// Until is when the quiet around now ends, or the zero time when now is not quiet. Weekends and
// the nightly window join up: Friday 19:00 to Monday 08:00 is one quiet stretch. Clock times are
// wall-clock times in the hours' zone, so a window keeps its local times across a DST change; a
// window end that does not exist that day (inside a spring-forward gap) ends quiet at the first
// instant after the gap. The result is in the hours' zone.
func (h Hours) Until(now time.Time) time.Time {
	if !h.Enabled() {
		return time.Time{}
	}
	now = now.In(h.Location())
	if !h.quietAt(now) {
		return time.Time{}
	}
	t := now
	for range maxSpan * 3 {
		next := h.nextEdge(t)
		if !h.quietAt(next) {
			return next
		}
		t = next
	}
	return t // always quiet (a window of 00:00-24:00 with weekends): report the furthest end seen
}

// quietAt reports whether t (in the hours' zone) is quiet.
func (h Hours) quietAt(t time.Time) bool {
	if h.weekends && (t.Weekday() == time.Saturday || t.Weekday() == time.Sunday) {
		return true
	}
	if !h.window {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	if h.start < h.end {
		return m >= h.start && m < h.end
	}
	return m >= h.start || m < h.end
}

// nextEdge is the first instant after t where quiet may change: the window's start or end, or a
// midnight (weekends begin and end there), whichever comes first.
func (h Hours) nextEdge(t time.Time) time.Time {
	var best time.Time
	consider := func(c time.Time) {
		if c.After(t) && (best.IsZero() || c.Before(best)) {
			best = c
		}
	}
	y, mo, d := t.Date()
	for day := range 2 {
		consider(h.at(y, mo, d+day+1, 0))
		if h.window {
			consider(h.at(y, mo, d+day, h.start))
			consider(h.at(y, mo, d+day, h.end))
		}
	}
	return best
}

// at is the instant of minute-of-day m on the given day in the hours' zone. A wall time that does
// not exist that day (inside a spring-forward gap) is taken as the end of the gap, the first
// instant the clock shows a later time.
func (h Hours) at(y int, mo time.Month, d, m int) time.Time {
	t := time.Date(y, mo, d, m/60, m%60, 0, 0, h.Location())
	if t.Hour() == (m/60)%24 && t.Minute() == m%60 {
		return t
	}
	lo, hi := t.Add(-2*time.Hour), t.Add(2*time.Hour)
	if offset(lo) == offset(hi) {
		return t
	}
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2)
		if offset(mid) == offset(lo) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi.Truncate(time.Second)
}

func offset(t time.Time) int {
	_, off := t.Zone()
	return off
}

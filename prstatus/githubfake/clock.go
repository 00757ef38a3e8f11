package githubfake

import "time"

// DefaultStart is when a fake's own clock starts: a fixed instant, so runs are reproducible.
func DefaultStart() time.Time { return time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC) }

// clock is the fake's notion of time: a base (its own fixed start, or a function supplied with
// WithClock) plus an offset that Advance moves forward. The fake's lock guards it.
type clock struct {
	base   func() time.Time
	start  time.Time
	offset time.Duration
}

func (c *clock) now() time.Time {
	if c.base != nil {
		return c.base().Add(c.offset).UTC()
	}
	return c.start.Add(c.offset).UTC()
}

// Now is the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock.now()
}

// Advance moves the fake's clock forward by d (also when the base clock came from WithClock),
// then lets whatever was due by then happen (re-run check runs finishing, rate-limit windows
// resetting).
func (f *Fake) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	f.mu.Lock()
	defer f.unlock()
	f.clock.offset += d
	f.settleLocked()
}

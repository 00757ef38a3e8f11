package main

import (
	"flag"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // --quiet-tz works where the system has no zone database (Windows)

	"github.com/prmonitor/prmonitor/mcpserver/quiet"
)

// quietFlags are serve's quiet-hours flags: no question reaches the user while quiet.
type quietFlags struct {
	window   string
	weekends bool
	zone     string
}

func (q *quietFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.window, "quiet-hours", "", "no questions for the user in this daily window (`HH:MM-HH:MM`, e.g. 19:00-08:00 across midnight); agent work goes on")
	fs.BoolVar(&q.weekends, "quiet-weekends", false, "no questions for the user on Saturdays and Sundays")
	fs.StringVar(&q.zone, "quiet-tz", "", "the time zone of the quiet hours: an IANA `ZONE` name such as Europe/Berlin (default: local time)")
}

// hours builds the quiet hours the flags describe; the zero Hours when none are set.
func (q *quietFlags) hours() (quiet.Hours, error) {
	var loc *time.Location
	if z := strings.TrimSpace(q.zone); z != "" {
		l, err := time.LoadLocation(z)
		if err != nil {
			return quiet.Hours{}, fmt.Errorf("--quiet-tz %q is not a time zone (want an IANA name such as Europe/Berlin): %w", z, err)
		}
		loc = l
	}
	h, err := quiet.New(q.window, q.weekends, loc)
	if err != nil {
		return quiet.Hours{}, fmt.Errorf("--quiet-hours: %w", err)
	}
	return h, nil
}

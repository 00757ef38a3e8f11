package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard/floodtest"
)

// TestUnsignedLargeDeliveriesDoNotGrowTheHeapPastTheInFlightBound: 40 concurrent posts of 24 MiB
// with a forged signature (the signature can only be checked once the body is read). The bytes
// held at once are bounded before the check, so the heap grows by about the bound, not by the
// 960 MiB posted. PRMONITOR_MEASURE_UNBOUNDED=1 runs the same flood with no in-flight bound too,
// for the figure to compare with.
func TestUnsignedLargeDeliveriesDoNotGrowTheHeapPastTheInFlightBound(t *testing.T) {
	if testing.Short() {
		t.Skip("posts 960 MiB over loopback")
	}
	const posts, size = 40, 24 << 20
	cases := []struct {
		name     string
		inFlight int64
	}{{"the default bound", DefaultMaxInFlight}}
	if os.Getenv("PRMONITOR_MEASURE_UNBOUNDED") != "" {
		cases = append(cases, struct {
			name     string
			inFlight int64
		}{"no bound (measurement only)", posts * size})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m := &monitors{}
			h, err := New(Config{Secret: secret, Monitors: m, MaxInFlight: tt.inFlight})
			require.NoError(t, err)
			hs := httptest.NewServer(h)
			defer hs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res := floodtest.Flood{URL: hs.URL, Posts: posts, BodySize: size, Header: http.Header{
				"X-Hub-Signature-256": {"sha256=" + strings.Repeat("0", 64)}, "X-Github-Event": {"pull_request"},
				"Content-Type": {"application/json"}}}.Run(ctx)
			t.Logf("%d posts of %d MiB, in-flight bound %d MiB: %s", posts, size>>20, tt.inFlight>>20, res)
			assert.Empty(t, m.got, "nothing was signalled")
			for status := range res.Statuses {
				assert.Contains(t, []int{http.StatusUnauthorized, http.StatusServiceUnavailable}, status)
			}
			assert.Positive(t, res.Statuses[http.StatusUnauthorized], "bodies were read and their signatures refused")
			if tt.inFlight == DefaultMaxInFlight {
				assert.Less(t, res.Growth(), uint64(4*DefaultMaxInFlight), "the heap grew past the in-flight bound's reach")
			}
		})
	}
}

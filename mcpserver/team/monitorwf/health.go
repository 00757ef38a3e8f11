package monitorwf

import (
	"context"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
)

// HealthWithin bounds how long a health check waits on the Temporal frontend.
const HealthWithin = 5 * time.Second

// Health answers GET /healthz for the front end and a worker's webhook listener: 200 "ok" while
// the Temporal frontend answers within `within`, 503 otherwise. It needs no token, so it says
// nothing else: no user, no version, no address, no cause (docs/deploy.md).
func Health(c client.Client, within time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), within)
		defer cancel()
		w.Header().Set("Cache-Control", "no-store")
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			http.Error(w, "Temporal unreachable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte("ok\n"))
	}
}

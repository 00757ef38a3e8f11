package monitorwf

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// A health check whose Temporal frontend does not answer says 503 and no more: not the address
// it tried, not the error (it needs no token, so anyone may ask). The answer while Temporal
// answers is held end to end (TestHealthzAnswersWithoutATokenAndRevealsNothing).
func TestAHealthCheckWithoutTemporalAnswers503AndNamesNothing(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	rec := httptest.NewRecorder()
	Health(c, 300*time.Millisecond)(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "Temporal unreachable\n", rec.Body.String())
	assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
}

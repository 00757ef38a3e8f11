package ghclient

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestAFingerprintBatchTakesPerAliasRefusalsAsMissingAndAnythingElseAsAFailure(t *testing.T) {
	a := prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}
	b := prstatus.PRRef{Owner: "o", Repo: "secret", Number: 2}
	pr := map[string]any{"updatedAt": "2026-11-21T12:00:00Z", "headRefOid": "abc", "baseRefOid": "def", "state": "OPEN",
		"isDraft": false, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN", "reviewDecision": nil,
		"totalCommentsCount": 2, "statusCheckRollup": nil}
	tests := []struct {
		name    string
		errors  []any
		wantErr string
	}{
		{name: "a repository the token cannot see", errors: []any{map[string]any{"type": "FORBIDDEN", "path": []any{"r1"}, "message": "Resource not accessible"}}},
		{name: "a repository that does not exist", errors: []any{map[string]any{"type": "NOT_FOUND", "path": []any{"r1"}, "message": "Could not resolve"}}},
		{name: "any other error", errors: []any{map[string]any{"message": "Field 'x' doesn't exist"}}, wantErr: "Field 'x' doesn't exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				in := decodeGQL(t, r)
				assert.Contains(t, in.Query, "r0:repository(owner:$o0,name:$n0){p1:pullRequest(number:1){...fp}}")
				assert.Equal(t, "secret", in.Variables["n1"])
				writeJSON(w, http.StatusOK, map[string]any{
					"data": map[string]any{
						"rateLimit": map[string]any{"cost": 1, "remaining": 4999, "limit": 5000, "resetAt": "2026-11-21T13:00:00Z"},
						"r0":        map[string]any{"p1": pr},
						"r1":        nil,
					},
					"errors": tt.errors,
				})
			}))
			batch, err := c.Fingerprints(t.Context(), []prstatus.PRRef{a, b})
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "abc", batch.PRs[a].HeadOID)
			assert.Equal(t, 2, batch.PRs[a].TotalComments)
			assert.True(t, batch.PRs[b].Missing)
			assert.Equal(t, prstatus.RateLimit{Cost: 1, Remaining: 4999, Limit: 5000, ResetAt: testNow.Add(time.Hour)}, batch.RateLimit)
		})
	}
}

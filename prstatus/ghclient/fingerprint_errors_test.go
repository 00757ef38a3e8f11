package ghclient

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// TestAFingerprintBatchTakesPerAliasRefusalsAsMissingAndKeepsWhatItCould is about GitHub's answers
// with errors: a refusal of one alias is that pull request missing; an alias GitHub could not
// answer (part of a heavy query timed out) is Failed, to be read again, and the others are kept;
// an error for no alias fails the batch, as partial data is never taken for whole.
func TestAFingerprintBatchTakesPerAliasRefusalsAsMissingAndKeepsWhatItCould(t *testing.T) {
	a := prstatus.PRRef{Owner: "o", Repo: "r", Number: 1}
	b := prstatus.PRRef{Owner: "o", Repo: "secret", Number: 2}
	pr := map[string]any{"updatedAt": "2026-11-21T12:00:00Z", "headRefOid": "abc", "baseRef": map[string]any{"target": map[string]any{"oid": "def"}}, "state": "OPEN",
		"isDraft": false, "mergeable": "MERGEABLE", "mergeStateStatus": "CLEAN", "reviewDecision": nil,
		"totalCommentsCount": 2, "statusCheckRollup": nil}
	tests := []struct {
		name    string
		errors  []any
		wantErr string
		failed  bool
	}{
		{
			name:   "a pull request GitHub could not answer in time",
			errors: []any{map[string]any{"path": []any{"r1", "p2"}, "message": "Something went wrong while executing your query. This may be the result of a timeout"}},
			failed: true,
		},
		{
			name:   "a repository GitHub could not answer in time",
			errors: []any{map[string]any{"path": []any{"r1"}, "message": "Something went wrong while executing your query. This may be the result of a timeout"}},
			failed: true,
		},
		{name: "a repository the token cannot see", errors: []any{map[string]any{"type": "FORBIDDEN", "path": []any{"r1"}, "message": "Resource not accessible"}}},
		{name: "a repository that does not exist", errors: []any{map[string]any{"type": "NOT_FOUND", "path": []any{"r1"}, "message": "Could not resolve"}}},
		{name: "any other error", errors: []any{map[string]any{"message": "Field 'x' doesn't exist"}}, wantErr: "Field 'x' doesn't exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				in := decodeGQL(t, r)
				assert.Contains(t, in.Query, "r0:repository(owner:$o0,name:$n0){p1:pullRequest(number:1){...fpC}}")
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
			assert.Equal(t, "abc", batch.PRs[a].HeadOID, "the good part is kept")
			assert.Equal(t, "def", batch.PRs[a].BaseOID, "the base tip")
			assert.Equal(t, 2, batch.PRs[a].TotalComments)
			if tt.failed {
				assert.NotContains(t, batch.PRs, b)
				assert.Contains(t, batch.Failed[b], "timeout")
			} else {
				assert.True(t, batch.PRs[b].Missing)
				assert.Empty(t, batch.Failed)
			}
			assert.Equal(t, prstatus.RateLimit{Cost: 1, Remaining: 4999, Limit: 5000, ResetAt: testNow.Add(time.Hour)}, batch.RateLimit)
		})
	}
}

package temporaltest

import (
	"fmt"
	"os"
	"testing"
)

// EnvRequire makes a missing dev server a failure instead of a skip (the team tier's runner,
// tools/teamtier, sets it: there a skip would hide the tier's whole point).
const EnvRequire = "PRMONITOR_REQUIRE_TEMPORAL"

// TeamTierCommand is what a developer runs for the tests that need the real Temporal server.
const TeamTierCommand = "go run -C tools ./teamtier"

// Binary returns the dev server's binary: $PRMONITOR_TEMPORAL_DEV. A test never builds it: the
// server's library compiles for about ten minutes on 2 cores, longer than go test's default
// timeout, so the team tier's runner (tools/teamtier) builds it once, up front, and names it here
// (docs/deploy.md#the-tests). Without it the test skips, saying what to run; with EnvRequire set
// it fails.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin == "" {
		missing(t, fmt.Sprintf("needs the real Temporal server, which the default test run does not build: run `%s` (it builds the server once, about 10 minutes on 2 cores, then runs the team tier)", TeamTierCommand))
		return ""
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("temporaltest: %s=%s: %v; run `%s`, which builds it", EnvBinary, bin, err, TeamTierCommand)
		return ""
	}
	return bin
}

// missing skips t with why, or fails it when the team tier requires the server.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvRequire) != "" {
		t.Fatalf("temporaltest: %s (%s is set)", why, EnvRequire)
		return
	}
	t.Skip(why)
}

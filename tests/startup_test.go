package tests

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initLine is one line of GODEBUG=inittrace=1: a package's initialisation, its time and memory.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, \d+ allocs$`)

// maxOwnInitBytes bounds what the module's packages (and the GraphQL parser) allocate while the
// program starts. Parsing GitHub's schema allocates about 8 MB, so a parse at start-up, in any
// package-level variable or init function, cannot hide below it; today's total is under 400 KB.
const maxOwnInitBytes = 1 << 20

// TestStartupParsesNoSchema: starting the binary parses neither the fake's GraphQL schema nor
// anything else costly, whatever the command (version does nothing else, so it shows the start
// alone).
func TestStartupParsesNoSchema(t *testing.T) {
	needBinary(t)
	cmd := exec.Command(binary, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	rows := initLine.FindAllStringSubmatch(string(out), -1)
	require.NotEmpty(t, rows, "no init trace in %s", out)
	total, seen := 0, false
	for _, r := range rows {
		if !strings.HasPrefix(r[1], module) && !strings.HasPrefix(r[1], "github.com/vektah/gqlparser") {
			continue
		}
		seen = true
		n, err := strconv.Atoi(r[2])
		require.NoError(t, err)
		total += n
		t.Logf("init %s: %d bytes", r[1], n)
	}
	require.True(t, seen, "the trace names none of the module's packages:\n%s", out)
	assert.Less(t, total, maxOwnInitBytes, "the module's packages allocate %d bytes at start-up", total)
}

// BenchmarkStartVersion is the wall time of `prmonitor version`: process start to exit, the floor
// every command pays.
func BenchmarkStartVersion(b *testing.B) {
	for b.Loop() {
		if err := exec.Command(binary, "version").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

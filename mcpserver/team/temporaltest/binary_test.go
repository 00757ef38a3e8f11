package temporaltest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a testing.TB that records how a test would end instead of ending it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Skip(args ...any)             { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = fmt.Sprintf(f, args...) }

func TestWithoutTheServerATestSaysInOneSentenceWhatToRun(t *testing.T) {
	for _, c := range []struct {
		name, bin, require string
		skips, fails       bool
	}{
		{name: "nothing named: skip", skips: true},
		{name: "nothing named, the tier requires it: fail", require: "1", fails: true},
		{name: "a name that is not there: fail", bin: filepath.Join(t.TempDir(), "gone"), fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvBinary, c.bin)
			t.Setenv(EnvRequire, c.require)
			r := &recorder{TB: t}
			assert.Empty(t, Binary(r))
			said := r.skipped + r.failed
			assert.Equal(t, c.skips, r.skipped != "", "skipped: %q", r.skipped)
			assert.Equal(t, c.fails, r.failed != "", "failed: %q", r.failed)
			assert.Contains(t, said, "go run -C tools ./teamtier", "names the command")
		})
	}
}

func TestANamedBinaryIsTheOneUsed(t *testing.T) {
	t.Setenv(EnvBinary, "/bin/sh")
	r := &recorder{TB: t}
	assert.Equal(t, "/bin/sh", Binary(r))
	assert.Empty(t, r.skipped+r.failed)
}

package temporaltest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// buildWithin bounds a cold build of the dev server (go.temporal.io/server compiles in about
// ten minutes on 2 cores).
const buildWithin = 25 * time.Minute

// Binary returns the dev server's binary: $PRMONITOR_TEMPORAL_DEV when set, else one built from
// the tools module, cached under the user's cache directory by the hash of tools/go.sum and
// tools/temporaldev's source. Test binaries of several packages may ask at once: a file lock lets
// one build (to a file of its own, renamed into place: no one sees half a binary) while the others
// wait and take its result.
func Binary(t testing.TB) (string, error) {
	t.Helper()
	if bin := os.Getenv(EnvBinary); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBinary, bin, err)
		}
		return bin, nil
	}
	tools, err := toolsDir()
	if err != nil {
		return "", err
	}
	key, err := sourceKey(tools)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "prmonitor")
	bin := filepath.Join(dir, "temporaldev-"+key)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// One test binary builds; the others (go test ./... runs packages side by side) wait for it
	// rather than compile the server again each.
	ctx, cancel := ctxFor(buildWithin)
	defer cancel()
	lock := flock.New(filepath.Join(dir, "temporaldev.lock"))
	if ok, err := lock.TryLockContext(ctx, time.Second); err != nil || !ok {
		return "", fmt.Errorf("wait for another test's build of the dev server: %v", err)
	}
	defer func() { _ = lock.Unlock() }()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp, err := os.CreateTemp(dir, "temporaldev-build-*")
	if err != nil {
		return "", err
	}
	_ = tmp.Close()
	defer os.Remove(tmp.Name())
	t.Logf("temporaltest: building tools/temporaldev (minutes on a cold cache; set %s to skip)", EnvBinary)
	cmd := exec.CommandContext(ctx, "go", "build", "-C", tools, "-o", tmp.Name(), "./temporaldev")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -C %s ./temporaldev: %w\n%s", tools, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// toolsDir finds tools/ beside the product's go.mod, walking up from the working directory (a
// test runs in its package's directory).
func toolsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "temporaldev", "main.go")); err == nil {
			return filepath.Join(dir, "tools"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errNoTools
		}
		dir = parent
	}
}

// sourceKey hashes what the binary is built from: the tools module's requirements and the
// program's files.
func sourceKey(tools string) (string, error) {
	h := sha256.New()
	files := []string{filepath.Join(tools, "go.mod"), filepath.Join(tools, "go.sum")}
	src, err := filepath.Glob(filepath.Join(tools, "temporaldev", "*.go"))
	if err != nil {
		return "", err
	}
	for _, f := range append(files, src...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

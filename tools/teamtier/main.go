// Command teamtier runs the team tier of prmonitor's tests: the tests that need the real Temporal
// server (the team deployment's workflow, front end, worker and end-to-end runs) and the team
// build's own CLI tests. The default `go test ./...` skips those that need the server, saying to
// run this instead:
//
//	go run -C tools ./teamtier            # from the repository's root
//	go run -C tools ./teamtier -race      # extra arguments go to go test
//
// It first makes sure the dev server (tools/temporaldev, which links go.temporal.io/server) is
// built: once, up front, into the user's cache directory, keyed by the tools module's go.mod and
// go.sum and the program's source, with a bound longer than a cold build and a line every half
// minute while it builds. Later runs reuse the file. Interrupted, it ends the build's whole
// process group and leaves no partial file. Then it runs go test on the team packages with
// PRMONITOR_TEMPORAL_DEV naming the binary and PRMONITOR_REQUIRE_TEMPORAL set, so a test that
// cannot reach the server fails instead of skipping.
//
// PRMONITOR_TEMPORAL_DEV, when set, names a binary to use instead of building one.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// buildWithin bounds a cold build of the dev server: about ten minutes on 2 cores, so a machine
// three times slower still finishes.
const buildWithin = 45 * time.Minute

// testWithin is go test's -timeout for the tier (go test's default of 10 minutes is per package
// binary; the end-to-end package alone runs for minutes on a busy machine).
const testWithin = "30m"

// progressEvery is how often a running build says it is still building.
const progressEvery = 30 * time.Second

// packages are what the tier tests: every team package, and the team build's CLI.
var packages = [][]string{
	{"./mcpserver/team/..."},
	{"-tags", "team", "./cmd/prmonitor"},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "teamtier:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	tools, err := os.Getwd()
	if err != nil {
		return err
	}
	root := filepath.Dir(tools)
	if _, err := os.Stat(filepath.Join(tools, "temporaldev", "main.go")); err != nil {
		return fmt.Errorf("run me from the repository's root as `go run -C tools ./teamtier`: %w", err)
	}
	bin, err := devServer(ctx, tools, stderr)
	if err != nil {
		return err
	}
	browserNote(stderr)
	env := append(os.Environ(), "PRMONITOR_TEMPORAL_DEV="+bin, "PRMONITOR_REQUIRE_TEMPORAL=1")
	var failed []error
	for _, pkgs := range packages { // every set runs, whatever an earlier one said
		a := append([]string{"test", "-count=1", "-timeout", testWithin}, args...)
		a = append(a, pkgs...)
		fmt.Fprintf(stderr, "teamtier: go %v\n", a[1:])
		cmd := exec.CommandContext(ctx, "go", a...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, stdout, stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			failed = append(failed, fmt.Errorf("go test %v: %w", pkgs, err))
		}
	}
	return errors.Join(failed...)
}

// devServer returns the dev server's binary, building it when the cache has none for this source.
func devServer(ctx context.Context, tools string, stderr io.Writer) (string, error) {
	if bin := os.Getenv("PRMONITOR_TEMPORAL_DEV"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("PRMONITOR_TEMPORAL_DEV: %w", err)
		}
		return bin, nil
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
		fmt.Fprintf(stderr, "teamtier: the Temporal dev server is built: %s\n", bin)
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "teamtier: building the Temporal dev server once (it links go.temporal.io/server: about 10 minutes on 2 cores with a cold build cache; later runs reuse %s)\n", bin)
	if err := build(ctx, tools, bin, stderr); err != nil {
		return "", err
	}
	return bin, nil
}

// build builds tools/temporaldev into bin through a file of its own, renamed into place when
// done: no one ever runs half a binary, and a failed or interrupted build leaves nothing.
func build(ctx context.Context, tools, bin string, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, buildWithin)
	defer cancel()
	tmp := fmt.Sprintf("%s.building-%d", bin, os.Getpid())
	defer os.Remove(tmp) // gone once renamed; removed when the build failed
	cmd := exec.Command("go", "build", "-o", tmp, "./temporaldev")
	cmd.Dir, cmd.Stdout, cmd.Stderr = tools, stderr, stderr
	cmd.SysProcAttr = ownGroup()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("go build ./temporaldev: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("go build ./temporaldev: %w", err)
			}
			fmt.Fprintf(stderr, "teamtier: built the Temporal dev server in %s\n", time.Since(start).Round(time.Second))
			return os.Rename(tmp, bin)
		case <-tick.C:
			fmt.Fprintf(stderr, "teamtier: still building the Temporal dev server (%s so far)\n", time.Since(start).Round(time.Second))
		case <-ctx.Done():
			killGroup(cmd) // the go command and every compiler it started
			<-done
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("the Temporal dev server did not build within %s", buildWithin)
			}
			return fmt.Errorf("interrupted while building the Temporal dev server: %w", context.Cause(ctx))
		}
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

// browserNote says when the board's browser tests will skip for want of a browser.
func browserNote(stderr io.Writer) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if _, err := exec.LookPath(name); err == nil {
			return
		}
	}
	fmt.Fprintln(stderr, "teamtier: no Chromium on PATH: the board's browser tests skip (Debian: apt-get install chromium; set PRMONITOR_REQUIRE_BROWSER=1 to make that a failure)")
}

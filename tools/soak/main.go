// Command soak proves that prmonitor's tests hold under load: it keeps every core busy with a
// process of its own (the way another build or a browser saturates a developer's machine) and
// runs the test suite several times in a row, with the race detector, reporting each run's wall
// time and result. A red run under load is a defect, like a red run on a quiet machine.
//
//	go run -C tools ./soak                    # go test -race -count=1 ./..., 3 runs, cores saturated
//	go run -C tools ./soak -runs 3 -- -short  # the fast loop the same way
//
// Arguments after the flags (or after --) go to go test before the package pattern.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-burn" {
		burn()
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tools, err := os.Getwd()
	if err == nil {
		err = run(ctx, filepath.Dir(tools), os.Args[1:], os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// run runs the soak on the module at root (the repository: tools' parent).
func run(ctx context.Context, root string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 3, "how many runs in a row")
	race := fs.Bool("race", true, "run the tests with the race detector")
	burners := fs.Int("burn", runtime.NumCPU(), "how many cores the burner keeps busy")
	pattern := fs.String("pkgs", "./...", "the packages to test")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("run me from the repository's root as `go run -C tools ./soak`: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	burner := exec.CommandContext(ctx, self, "-burn")
	burner.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", max(*burners, 1)))
	burner.SysProcAttr = dieWithParent()
	if err := burner.Start(); err != nil {
		return fmt.Errorf("start the burner: %w", err)
	}
	defer func() { _ = burner.Process.Kill(); _ = burner.Wait() }()
	fmt.Fprintf(stderr, "soak: %d cores kept busy by process %d; %d runs of go test\n", *burners, burner.Process.Pid, *runs)

	testArgs := []string{"test", "-count=1"}
	if *race {
		testArgs = append(testArgs, "-race")
	}
	testArgs = append(testArgs, fs.Args()...)
	testArgs = append(testArgs, *pattern)
	var failed []int
	var took []string
	for i := 1; i <= *runs; i++ {
		fmt.Fprintf(stderr, "soak: run %d of %d: go %s\n", i, *runs, strings.Join(testArgs, " "))
		start := time.Now()
		cmd := exec.CommandContext(ctx, "go", testArgs...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, stdout, stderr
		err := cmd.Run()
		d := time.Since(start).Round(time.Second)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		result := "passed"
		if err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return err
			}
			result = "FAILED"
			failed = append(failed, i)
		}
		took = append(took, fmt.Sprintf("run %d %s in %s", i, result, d))
		fmt.Fprintf(stderr, "soak: %s\n", took[len(took)-1])
	}
	fmt.Fprintf(stderr, "soak: %s\n", strings.Join(took, "; "))
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d runs failed under load: %v", len(failed), *runs, failed)
	}
	fmt.Fprintf(stdout, "soak: %d passed, 0 failed\n", *runs)
	return nil
}

// burn keeps GOMAXPROCS cores busy until it is killed, or its parent dies.
func burn() {
	for range runtime.GOMAXPROCS(0) {
		go spin()
	}
	spin()
}

func spin() {
	x := 1
	for {
		x = x*1103515245 + 12345
		if x == 0 {
			fmt.Print("")
		}
	}
}

package tests

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// binary is the prmonitor built once for the whole package; empty under -short, where the
// end-to-end tests skip and only the static ones run.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir := ""
	if !testing.Short() {
		var err error
		if dir, err = build(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// build builds prmonitor (with the race detector when the tests have it) into a temporary
// directory and sets binary.
func build() (string, error) {
	dir, err := os.MkdirTemp("", "prmonitor-e2e-")
	if err != nil {
		return "", err
	}
	binary = filepath.Join(dir, "prmonitor")
	cmd := exec.Command("go", "build", "-race", "-o", binary, "../cmd/prmonitor")
	if !raceEnabled {
		cmd = exec.Command("go", "build", "-o", binary, "../cmd/prmonitor")
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("build prmonitor: %w", err)
	}
	return dir, nil
}

// needBinary skips a test that runs the built binary under -short, where none is built.
func needBinary(t *testing.T) {
	t.Helper()
	if binary == "" {
		t.Skip("runs the built binary: without -short")
	}
}

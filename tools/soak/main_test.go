package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a tiny module whose one test passes or fails.
func module(t *testing.T, pass bool) string {
	t.Helper()
	dir := t.TempDir()
	body := "package m\n\nimport \"testing\"\n\nfunc TestIt(t *testing.T) {}\n"
	if !pass {
		body = "package m\n\nimport \"testing\"\n\nfunc TestIt(t *testing.T) { t.Fatal(\"red\") }\n"
	}
	for name, text := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m_test.go": body} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestASoakOfGreenRunsReportsEachAndPasses(t *testing.T) {
	var out, log bytes.Buffer
	if err := run(context.Background(), module(t, true), []string{"-runs", "2", "-race=false", "-burn", "1"}, &out, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if !strings.Contains(out.String(), "soak: 2 passed, 0 failed") {
		t.Errorf("no closing line: %q", out.String())
	}
	for _, want := range []string{"1 cores kept busy", "run 1 passed in", "run 2 passed in"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
}

func TestARedRunUnderLoadFailsTheSoak(t *testing.T) {
	var out, log bytes.Buffer
	err := run(context.Background(), module(t, false), []string{"-runs", "2", "-race=false", "-burn", "1"}, &out, &log)
	if err == nil || !strings.Contains(err.Error(), "2 of 2 runs failed") {
		t.Fatalf("run = %v, want 2 of 2 runs failed\n%s", err, log.String())
	}
}

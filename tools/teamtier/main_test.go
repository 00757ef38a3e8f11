package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// toolsLike writes a tools directory whose temporaldev is a tiny program, so a real go build of
// it takes a second instead of ten minutes.
func toolsLike(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/tools\n\ngo 1.22\n")
	write("go.sum", "")
	write("temporaldev/main.go", "package main\n\nfunc main() {}\n")
	return dir
}

func TestTheKeyFollowsTheSourceAndTheRequirements(t *testing.T) {
	tools := toolsLike(t)
	k1, err := sourceKey(tools)
	if err != nil {
		t.Fatal(err)
	}
	if k2, _ := sourceKey(tools); k2 != k1 {
		t.Fatalf("the same source gave %s, then %s", k1, k2)
	}
	if err := os.WriteFile(filepath.Join(tools, "go.sum"), []byte("x v1.0.0 h1:abc=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k3, _ := sourceKey(tools)
	if k3 == k1 {
		t.Fatal("a changed go.sum kept the key")
	}
	if err := os.WriteFile(filepath.Join(tools, "temporaldev", "more.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if k4, _ := sourceKey(tools); k4 == k3 {
		t.Fatal("a new source file kept the key")
	}
}

func TestABuildLandsWholeAndSaysWhatItIsDoing(t *testing.T) {
	tools := toolsLike(t)
	bin := filepath.Join(t.TempDir(), "temporaldev-key")
	var log bytes.Buffer
	if err := build(context.Background(), tools, bin, &log); err != nil {
		t.Fatalf("build: %v\n%s", err, log.String())
	}
	if st, err := os.Stat(bin); err != nil || st.Size() == 0 {
		t.Fatalf("no binary at %s: %v", bin, err)
	}
	if !bytes.Contains(log.Bytes(), []byte("built the Temporal dev server in")) {
		t.Errorf("the build did not say it was done: %q", log.String())
	}
	if left, _ := filepath.Glob(bin + ".building-*"); len(left) != 0 {
		t.Errorf("partial files left: %v", left)
	}
}

func TestAnInterruptedBuildLeavesNoFileBehind(t *testing.T) {
	tools := toolsLike(t)
	bin := filepath.Join(t.TempDir(), "temporaldev-key")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted before the build could finish
	var log bytes.Buffer
	if err := build(ctx, tools, bin, &log); err == nil {
		t.Fatal("an interrupted build succeeded")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "*"))
	if len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

func TestABrokenSourceIsAnErrorAndNoFile(t *testing.T) {
	tools := toolsLike(t)
	if err := os.WriteFile(filepath.Join(tools, "temporaldev", "main.go"), []byte("package main\n\nfunc main() { nope }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "temporaldev-key")
	if err := build(context.Background(), tools, bin, &bytes.Buffer{}); err == nil {
		t.Fatal("a source that does not compile built")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "*")); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

func TestANamedBinaryIsUsedAsIs(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dev")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRMONITOR_TEMPORAL_DEV", bin)
	got, err := devServer(context.Background(), "/nonexistent", &bytes.Buffer{})
	if err != nil || got != bin {
		t.Fatalf("devServer = %q, %v; want %q", got, err, bin)
	}
	t.Setenv("PRMONITOR_TEMPORAL_DEV", bin+".missing")
	if _, err := devServer(context.Background(), "/nonexistent", &bytes.Buffer{}); err == nil {
		t.Fatal("a named binary that does not exist was accepted")
	}
}

package boardtest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The accessibility check: axe-core (npm, pinned in axe/package-lock.json) run in the page. It is
// installed up front, never by a test: `npm ci --prefix mcpserver/team/board/boardtest/axe`
// (.ci/run does).

// axeTags are the rules run: WCAG 2.0, 2.1 and 2.2, levels A and AA (contrast, names, roles,
// keyboard, target size).
const axeRun = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}})
  .then(r => r.violations.map(v => v.id + ": " + v.help + " — " + v.nodes.map(n => n.target.join(" ") + " (" + n.failureSummary + ")").join("; ")))`

// axeSource is axe-core's script, or a skip (a failure under EnvRequireBrowser) when it was not
// installed.
func axeSource(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "axe")
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv(EnvRequireBrowser) != "" {
			t.Fatalf("axe-core is not installed (%v): run npm ci --prefix %s", err, dir)
		}
		t.Skipf("axe-core is not installed: run npm ci --prefix %s; set %s to make this a failure", dir, EnvRequireBrowser)
	}
	return string(b)
}

// Accessible runs axe-core on the page as it is and fails the test on every violation, each
// named with the elements it concerns. what says which page, width and scheme it was.
func Accessible(ctx context.Context, t *testing.T, what string) {
	t.Helper()
	for _, v := range Violations(ctx, t) {
		t.Errorf("%s: accessibility: %s", what, v)
	}
}

// Violations are axe-core's findings on the page as it is.
func Violations(ctx context.Context, t *testing.T) []string {
	t.Helper()
	src := axeSource(t)
	if !Run(ctx, t, chromedp.Evaluate[bool](`typeof axe !== "undefined"`)) {
		Run(ctx, t, chromedp.Evaluate[bool](src+"\n;true"))
	}
	return Run(ctx, t, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
}

// Scheme emulates the person's colour scheme: "light" or "dark".
func Scheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// NoScript turns the page's scripts off (on) for the pages loaded next.
func NoScript(off bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
		return err
	})
}

// Package boardtest drives the board in a real headless Chromium (Debian's chromium in CI) for
// the tests of the board and of the front end that serves it.
package boardtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// EnvRequireBrowser makes a missing browser a failure (CI sets it); EnvScreenshot names a PNG to
// write of the phone-sized page.
const (
	EnvRequireBrowser = "PRMONITOR_REQUIRE_BROWSER"
	EnvScreenshot     = "PRMONITOR_BOARD_SCREENSHOT"
)

// chromium finds a Chromium or Chrome, or skips (fails under PRMONITOR_REQUIRE_BROWSER).
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a real browser: not under -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(EnvRequireBrowser) != "" {
		t.Fatalf("no Chromium found on PATH and %s is set (.ci/run installs Debian's chromium)", EnvRequireBrowser)
	}
	t.Skipf("no Chromium found on PATH (apt-get install chromium); set %s to make this a failure", EnvRequireBrowser)
	return ""
}

// Browse opens a headless Chromium with the flags that work in a sandboxed CI container; it is
// closed when t ends.
func Browse(t *testing.T) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// Run runs one action that returns a value.
func Run[T any](ctx context.Context, t *testing.T, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

// Screenshot writes the page to EnvScreenshot's file, when it names one.
func Screenshot(ctx context.Context, t *testing.T) {
	if path := os.Getenv(EnvScreenshot); path != "" {
		require.NoError(t, os.WriteFile(path, Run(ctx, t, chromedp.FullScreenshot(100)), 0o644))
	}
}

package board

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// envRequireBrowser makes a missing browser a failure (CI sets it); envScreenshot names a PNG to
// write of the phone-sized page.
const (
	envRequireBrowser = "PRMONITOR_REQUIRE_BROWSER"
	envScreenshot     = "PRMONITOR_BOARD_SCREENSHOT"
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
	if os.Getenv(envRequireBrowser) != "" {
		t.Fatalf("no Chromium found on PATH and %s is set (.ci/run installs Debian's chromium)", envRequireBrowser)
	}
	t.Skipf("no Chromium found on PATH (apt-get install chromium); set %s to make this a failure", envRequireBrowser)
	return ""
}

// browse opens a headless Chromium with the flags that work in a sandboxed CI container.
func browse(t *testing.T) context.Context {
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

func TestInARealBrowserTheBoardShowsTheMonitorsOnAPhoneAndFollowsTheirChanges(t *testing.T) {
	ctx := browse(t)
	r := &views{v: sampleView()}
	h, err := New(Config{Reader: r, Every: 100 * time.Millisecond, User: func(*http.Request) (string, bool) { return "alice", true }})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer func() { srv.CloseClientConnections(); srv.Close() }() // the page's event stream stays open

	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3)),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`article.card[data-monitor="acme/widgets#8"]`),
	))
	assert.Equal(t, 2, run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("article.card").length`)))
	text := run(ctx, t, chromedp.Text(`main`))
	assert.Contains(t, text, hostileTitle, "GitHub's text is shown as text")
	assert.Equal(t, 2, run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll(".title.gh").length`)), "in a box labelled as GitHub's")
	assert.NotContains(t, text, "<<<untrusted", "the model's fence becomes the box")
	assert.Zero(t, run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("img, b").length`)), "and never becomes markup")
	assert.NotEqual(t, "pwned", run(ctx, t, chromedp.Title()))
	assert.Contains(t, text, "waits on you")
	assert.Contains(t, text, "The pull request is ready. Merge it?")
	assert.Contains(t, text, "Merge now")
	assert.Contains(t, text, "watching GitHub")
	assert.Equal(t, "signed in as alice", run(ctx, t, chromedp.Text(`#user`)))
	assert.Contains(t, run(ctx, t, chromedp.Text(`#budget`)), "4210 of 5000")
	assert.False(t, run(ctx, t, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)),
		"nothing is wider than a phone's screen")
	assert.Equal(t, []string{"https://github.com/acme/widgets/pull/7"},
		run(ctx, t, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a")).map(a => a.href)`)),
		"only an https link is a link")

	r.set(func(v *View) {
		v.Monitors[1].Question = &elicitation.Question{ID: "ci", Seq: 4, Text: "Checks failed on the head. Investigate?",
			Choices: []elicitation.Choice{{Value: "investigate", Label: "Investigate"}}}
		v.Monitors[1].WaitingOn = "user"
	})
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(`article.card[data-monitor="acme/widgets#8"] .question`)))
	assert.Contains(t, run(ctx, t, chromedp.Text(`article.card[data-monitor="acme/widgets#8"]`)), "Checks failed on the head. Investigate?",
		"the change reached the open page without a reload")

	if path := os.Getenv(envScreenshot); path != "" {
		require.NoError(t, os.WriteFile(path, run(ctx, t, chromedp.FullScreenshot(100)), 0o644))
	}
}

// run runs one action that returns a value.
func run[T any](ctx context.Context, t *testing.T, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

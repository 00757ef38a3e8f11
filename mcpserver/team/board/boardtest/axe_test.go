package boardtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The check can fail: a page with grey on grey, an unnamed button and a small target is refused,
// in the dark scheme too.
func TestTheAccessibilityCheckFindsWhatIsWrong(t *testing.T) {
	ctx := Browse(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>bad</title><style>
@media (prefers-color-scheme: dark) { body { background:#0d1117 } a { color:#1f2a44 } }
</style></head><body><main><p style="color:#999;background:#aaa">hard to read</p><button></button>
<a href="/x" style="display:inline-block;width:10px;height:10px;font-size:8px">x</a><a href="/y">a link</a></main></body></html>`))
	}))
	defer srv.Close()
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, Scheme(scheme), chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS(`main`))))
		found := strings.Join(Violations(ctx, t), "\n")
		assert.Contains(t, found, "color-contrast", scheme)
		assert.Contains(t, found, "button-name", scheme)
		assert.Contains(t, found, "target-size", scheme)
	}
}

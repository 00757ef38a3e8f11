package board

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/team/board/boardtest"
)

func TestInARealBrowserTheBoardShowsTheMonitorsOnAPhoneAndFollowsTheirChanges(t *testing.T) {
	ctx := boardtest.Browse(t)
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
	assert.Equal(t, 2, boardtest.Run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("article.card").length`)))
	text := boardtest.Run(ctx, t, chromedp.Text(`main`))
	assert.Contains(t, text, hostileTitle, "GitHub's text is shown as text")
	assert.Equal(t, 2, boardtest.Run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll(".title.gh").length`)), "in a box labelled as GitHub's")
	assert.NotContains(t, text, "<<<untrusted", "the model's fence becomes the box")
	assert.Zero(t, boardtest.Run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("img, b").length`)), "and never becomes markup")
	assert.NotEqual(t, "pwned", boardtest.Run(ctx, t, chromedp.Title()))
	assert.Contains(t, text, "waits on you")
	assert.Contains(t, text, "The pull request is ready. Merge it?")
	assert.Contains(t, text, "Merge now")
	assert.Contains(t, text, "watching GitHub")
	assert.Equal(t, "signed in as alice", boardtest.Run(ctx, t, chromedp.Text(`#user`)))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(`#budget`)), "4210 of 5000")
	assert.False(t, boardtest.Run(ctx, t, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)),
		"nothing is wider than a phone's screen")
	assert.Equal(t, []string{"https://github.com/acme/widgets/pull/7"},
		boardtest.Run(ctx, t, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a")).map(a => a.href)`)),
		"only an https link is a link")

	r.set(func(v *View) {
		v.Monitors[1].Question = &elicitation.Question{ID: "ci", Seq: 4, Text: "Checks failed on the head. Investigate?",
			Choices: []elicitation.Choice{{Value: "investigate", Label: "Investigate"}}}
		v.Monitors[1].WaitingOn = "user"
	})
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(`article.card[data-monitor="acme/widgets#8"] .question`)))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(`article.card[data-monitor="acme/widgets#8"]`)), "Checks failed on the head. Investigate?",
		"the change reached the open page without a reload")

	boardtest.Screenshot(ctx, t)
}

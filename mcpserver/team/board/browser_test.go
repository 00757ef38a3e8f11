package board

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/team/board/boardtest"
)

// smallTargets lists the visible links, buttons and fields smaller than 44 × 44 CSS pixels.
const smallTargets = `Array.from(document.querySelectorAll("a, button, input, select, textarea"))
  .map(e => [e, e.getBoundingClientRect()])
  .filter(([e, r]) => r.width > 0 && r.height > 0 && r.left >= 0 && getComputedStyle(e).visibility !== "hidden")
  .filter(([e, r]) => r.width < 44 || r.height < 44)
  .map(([e, r]) => e.outerHTML.slice(0, 80) + " " + Math.round(r.width) + "×" + Math.round(r.height))`

func TestInARealBrowserTheBoardIsUsableOnAPhoneAndADesktopInBothSchemes(t *testing.T) {
	ctx := boardtest.Browse(t)
	v := sampleView()
	v.Monitors[0].Question.Text = "Approved by: " + fenced("bob") + "\nMerge it?"
	r := &views{v: v}
	a := &answers{}
	var signedIn atomic.Bool
	signedIn.Store(true)
	h, err := New(Config{Reader: r, Every: 100 * time.Millisecond, Answer: a.answer,
		Now:  func() time.Time { return time.Now().Add(-time.Hour) }, // the server's "ago" is off; the page's script says it right
		User: func(*http.Request) (string, bool) { return "alice", signedIn.Load() },
		SignOut: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			signedIn.Store(false)
			w.WriteHeader(http.StatusNoContent)
		}),
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer func() { srv.CloseClientConnections(); srv.Close() }() // the page's event stream stays open

	card7, card8 := `article.card[data-monitor="acme/widgets#7"]`, `article.card[data-monitor="acme/widgets#8"]`
	for _, size := range []struct {
		name          string
		width, height int64
		scale         float64
	}{{"phone", 390, 844, 3}, {"desktop", 1280, 800, 1}} {
		for _, scheme := range []string{"light", "dark"} {
			what := fmt.Sprintf("%s, %s scheme", size.name, scheme)
			require.NoError(t, chromedp.Do(ctx,
				chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(size.scale)),
				boardtest.Scheme(scheme),
				chromedp.Navigate(srv.URL+"/"),
				chromedp.WaitVisible(card8),
			), what)
			boardtest.Accessible(ctx, t, what)
			assert.Empty(t, boardtest.Run(ctx, t, chromedp.Evaluate[[]string](smallTargets)), "%s: every tap target is 44 px or more", what)
			assert.False(t, boardtest.Run(ctx, t, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)),
				"%s: nothing is wider than the screen", what)
		}
	}

	text := boardtest.Run(ctx, t, chromedp.Text(`main`))
	assert.Contains(t, text, hostileTitle, "GitHub's text is shown as text")
	assert.Zero(t, boardtest.Run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("img, b").length`)), "and never becomes markup")
	assert.NotEqual(t, "pwned", boardtest.Run(ctx, t, chromedp.Title()))
	assert.Equal(t, "bob", boardtest.Run(ctx, t, chromedp.Text(card7+` legend q.gh`)), "quoted and marked as GitHub's")
	assert.NotContains(t, text, "<<<", "never with the agent's fence lines")
	assert.NotContains(t, text, "awaiting_user")
	assert.Contains(t, text, "waits on you")
	assert.Contains(t, text, "A question waits for your answer.")
	assert.Equal(t, []string{"https://github.com/acme/widgets/pull/7"},
		boardtest.Run(ctx, t, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main a")).map(a => a.href)`)),
		"only an https link is a link")
	assert.Equal(t, "3 min ago", boardtest.Run(ctx, t, chromedp.Poll[string](
		`(t => t && t.textContent === "3 min ago" ? t.textContent : null)(document.querySelector(`+strconv.Quote(card7+" time")+`))`)),
		"the page keeps the 'ago' times right")
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#budget`))), "4210 of 5000")

	// By keyboard alone: Tab to the choice, Enter.
	for range 40 {
		if boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.activeElement.value || ""`)) == "merge" {
			break
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\t")))
	}
	require.Equal(t, "merge", boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.activeElement.value || ""`)), "the choice is reached by Tab")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\r")))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Poll[string](
		`(s => s.startsWith("Sending") ? null : s)(document.querySelector(`+strconv.Quote(card7+" .answer-status")+`).textContent)`)), "Answered")
	a.mu.Lock()
	assert.Equal(t, []string{"alice acme/widgets#7 3 merge"}, a.got, "the user's answer, sent on")
	a.mu.Unlock()

	r.set(func(v *View) {
		v.Monitors[1].Question = &elicitation.Question{ID: "ci", Seq: 4, Text: "Checks failed on the head. Investigate?",
			Choices: []elicitation.Choice{{Value: "investigate", Label: "Investigate"}}}
		v.Monitors[1].WaitingOn = "user"
	})
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(card8+` .question button`)))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(card8)), "Checks failed on the head. Investigate?",
		"the change reached the open page without a reload")
	boardtest.Screenshot(ctx, t)

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#signout`)), chromedp.WaitVisible(chromedp.CSS(`#signin`))))
	assert.Empty(t, boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#budget`))), "the budget line goes with the session")
	assert.Empty(t, boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.getElementById("monitors").textContent`)))
	boardtest.Accessible(ctx, t, "the sign-in form")

	// Without JavaScript, the server's first view is the board.
	signedIn.Store(true)
	require.NoError(t, chromedp.Do(ctx, boardtest.NoScript(true), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(card7+` .question button`)))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(card7)), "Merge now")
	require.NoError(t, chromedp.Do(ctx, boardtest.NoScript(false)))
}

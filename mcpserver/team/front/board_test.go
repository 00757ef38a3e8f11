package front_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/board/boardtest"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestInARealBrowserAPersonSignsInSeesOnlyTheirMonitorsAndWatchesThemChangeLive(t *testing.T) {
	ctx := boardtest.Browse(t)
	tm := newTeam(t)
	tm.open(ref, "alice")
	alice := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	require.False(t, alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"}).isError)

	card := `article.card[data-monitor="acme/widgets#7"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3)),
		chromedp.Navigate(tm.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#signin`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), "not-a-token"),
		chromedp.Click(chromedp.CSS(`#signin button[type=submit]`)),
	))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Poll[string](`document.getElementById("signin-error").textContent || null`)),
		"not one this deployment knows")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#token`), tokens["alice"]),
		chromedp.Click(chromedp.CSS(`#signin button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(card)),
	))
	assert.Equal(t, "signed in as alice", boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#user`))))
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(card))), "watching GitHub")
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(card))), "Add retries")
	assert.NotContains(t, boardtest.Run(ctx, t, chromedp.Evaluate[string](`location.href`)), tokens["alice"], "the token is in no URL")
	assert.Empty(t, boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.cookie`)), "the session cookie is out of the page's reach (HttpOnly)")
	assert.Zero(t, boardtest.Run(ctx, t, chromedp.Evaluate[int](`sessionStorage.length + localStorage.length`)), "nothing kept in the page's storage")
	assert.Empty(t, boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.getElementById("token").value`)), "the field was cleared")
	assert.False(t, boardtest.Run(ctx, t, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)),
		"nothing is wider than a phone's screen")

	tm.fake.Advance(10 * time.Minute)
	require.NoError(t, tm.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries.")))
	tm.changed(ref, "pull_request_review.submitted")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(card+` .who.agent`))))
	text := boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(card)))
	assert.Contains(t, text, "waits on the agent", "the change reached the open page without a reload")
	assert.Contains(t, text, "The agent's task: rework the pull request after a review.")
	assert.Contains(t, boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#budget`))), "points left this hour", "the token's budget as the worker last saw it")
	boardtest.Screenshot(ctx, t)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#signout`)),
		chromedp.WaitVisible(chromedp.CSS(`#signin`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), tokens["bob"]),
		chromedp.Click(chromedp.CSS(`#signin button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.empty`)),
	))
	assert.Equal(t, "signed in as bob", boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#user`))))
	assert.Zero(t, boardtest.Run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("article.card").length`)), "bob sees none of alice's monitors")
	assert.True(t, strings.Contains(boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`main`))), "No monitors yet."))
}

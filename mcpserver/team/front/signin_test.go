package front_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/board/boardtest"
	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus/githubfake/signinfake"
)

// TestTheBoardSignsInWithGitHubAndLosesTheSessionWhenTheUserIsTakenOff: a person signs in to the
// board with GitHub (no token by hand), the session cookie lets the board's data through as
// their GitHub login, and ends the moment their GitHub id is no longer allowed. /mcp without a
// token names the sign-in's metadata; the tokens file still works beside it.
func TestTheBoardSignsInWithGitHubAndLosesTheSessionWhenTheUserIsTakenOff(t *testing.T) {
	gh := signinfake.New("Iv1.fronttest", "front-test-secret", "")
	gh.SignIn(signinfake.User{ID: 777, Login: "Alice"})
	ghSrv := httptest.NewServer(gh.Handler())
	t.Cleanup(ghSrv.Close)
	var allowed atomic.Bool
	allowed.Store(true)
	tm := newTeam(t, func(c *front.Config) {
		c.OAuth = &oauth.Config{GitHub: oauth.GitHub{ClientID: "Iv1.fronttest", ClientSecret: "front-test-secret", WebURL: ghSrv.URL},
			Allowed: func(who oauth.Identity) bool { return allowed.Load() && who.ID == 777 }}
	})
	gh.SetCallback(tm.url + "/oauth/callback")

	res, err := http.Get(tm.url + "/mcp")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Equal(t, `Bearer resource_metadata="`+tm.url+`/.well-known/oauth-protected-resource/mcp", scope="prmonitor"`, res.Header.Get("WWW-Authenticate"))

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	res, err = browser.Get(tm.url + "/signin/github")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	assert.Equal(t, tm.url+"/", res.Request.URL.String(), "back on the board")

	monitors := func() (int, string) {
		res, err := browser.Get(tm.url + "/api/monitors")
		require.NoError(t, err)
		defer res.Body.Close()
		var v struct {
			User string `json:"user"`
		}
		_ = json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v.User
	}
	status, user := monitors()
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "Alice", user, "the GitHub login as GitHub spells it, a name beside the id that owns the monitors")

	allowed.Store(false)
	status, _ = monitors()
	assert.Equal(t, http.StatusUnauthorized, status, "taken off the list: the session ends at once")

	req, err := http.NewRequest(http.MethodGet, tm.url+"/api/monitors", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tokens["bob"])
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "the tokens file works beside the sign-in")
	for _, a := range gh.Authorizations() {
		assert.True(t, strings.HasPrefix(a, "Bearer gho_"), "only GitHub's own token reaches GitHub")
	}
}

// TestInARealBrowserAPersonSignsInToTheBoardWithGitHub: the board's link, GitHub (the fake, which
// approves at once), back to the board signed in, the person's monitor on it; no token typed.
func TestInARealBrowserAPersonSignsInToTheBoardWithGitHub(t *testing.T) {
	ctx := boardtest.Browse(t)
	gh := signinfake.New("Iv1.fronttest", "front-test-secret", "")
	aliceID := teamtest.UserID("alice") // the id the tokens file gives alice, whose agent starts the monitor
	gh.SignIn(signinfake.User{ID: aliceID, Login: "alice"})
	ghSrv := httptest.NewServer(gh.Handler())
	t.Cleanup(ghSrv.Close)
	tm := newTeam(t, func(c *front.Config) {
		c.OAuth = &oauth.Config{GitHub: oauth.GitHub{ClientID: "Iv1.fronttest", ClientSecret: "front-test-secret", WebURL: ghSrv.URL},
			Allowed: func(who oauth.Identity) bool { return who.ID == aliceID }}
	})
	gh.SetCallback(tm.url + "/oauth/callback")
	tm.open(ref, "alice")
	require.False(t, tm.agent("alice", agentOptions{protocol: "2026-07-28"}).call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"}).isError)

	card := `article.card[data-monitor="acme/widgets#7"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(tm.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#signin`)),
		chromedp.Click(chromedp.CSS(`#signin a[href="signin/github"]`)),
		chromedp.WaitVisible(chromedp.CSS(card)),
	))
	assert.Equal(t, "signed in as alice", boardtest.Run(ctx, t, chromedp.Text(chromedp.CSS(`#user`))))
	assert.Equal(t, tm.url+"/", boardtest.Run(ctx, t, chromedp.Evaluate[string](`location.href`)), "back on the board, no code or state left in the URL")
	assert.Empty(t, boardtest.Run(ctx, t, chromedp.Evaluate[string](`document.cookie`)), "the session cookie is out of the page's reach (HttpOnly)")
}

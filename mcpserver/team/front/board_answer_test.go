package front_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boardSession is a browser signed in to the board as user.
func (tm *team) boardSession(user string) *http.Client {
	tm.t.Helper()
	return tm.boardSessionToken(tm.url, tokens[user])
}

// boardSessionToken is a browser signed in to the board at base with a bearer token.
func (tm *team) boardSessionToken(base, token string) *http.Client {
	tm.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(tm.t, err)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodPost, base+"/login", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	require.NoError(tm.t, err)
	resp.Body.Close()
	require.Equal(tm.t, http.StatusNoContent, resp.StatusCode)
	return c
}

// boardPage is what /api/monitors says to a session.
type boardPage struct {
	CSRF  string `json:"csrf"`
	Cards []struct {
		ID       string `json:"id"`
		Question *struct {
			Seq  int `json:"seq"`
			Text []struct {
				Text   string `json:"text"`
				GitHub bool   `json:"github"`
			} `json:"text"`
			Choices []struct {
				Value string `json:"value"`
			} `json:"choices"`
		} `json:"question"`
	} `json:"cards"`
}

func (tm *team) boardPage(c *http.Client) boardPage {
	tm.t.Helper()
	return tm.boardPageAt(tm.url, c)
}

// boardPageAt is what /api/monitors of the front end at base says to a session.
func (tm *team) boardPageAt(base string, c *http.Client) boardPage {
	tm.t.Helper()
	resp, err := c.Get(base + "/api/monitors")
	require.NoError(tm.t, err)
	defer resp.Body.Close()
	require.Equal(tm.t, http.StatusOK, resp.StatusCode)
	var p boardPage
	require.NoError(tm.t, json.NewDecoder(resp.Body).Decode(&p))
	return p
}

func answerOnBoard(t *testing.T, c *http.Client, base, monitor string, seq int, choice, csrf string) (int, string) {
	form := url.Values{"monitor": {monitor}, "seq": {strconv.Itoa(seq)}, "choice": {choice}, "csrf": {csrf}}
	req, _ := http.NewRequest(http.MethodPost, base+"/answer", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Message
}

// On the board the user answers the merge question themselves: refused without the page's token
// and for someone else's monitor; taken, and merged, from the user's own pick.
func TestOnTheBoardTheUserAnswersTheMergeQuestionAndTheMergeGoesThrough(t *testing.T) {
	tm := newTeam(t)
	tm.atTheMergeQuestion()

	browser := tm.boardSession("alice")
	page := tm.boardPage(browser)
	require.Len(t, page.Cards, 1)
	q := page.Cards[0].Question
	require.NotNil(t, q, "the open question is on alice's board")
	var text strings.Builder
	for _, p := range q.Text {
		text.WriteString(p.Text)
	}
	assert.NotContains(t, text.String(), "<<<", "without the agent's fence lines")

	code, _ := answerOnBoard(t, browser, tm.url, "acme/widgets#7", q.Seq, "merge", "forged")
	assert.Equal(t, http.StatusForbidden, code, "not without the page's token")
	bob := tm.boardSession("bob")
	code, _ = answerOnBoard(t, bob, tm.url, "acme/widgets#7", q.Seq, "merge", tm.boardPage(bob).CSRF)
	assert.Equal(t, http.StatusNotFound, code, "not someone else's monitor")
	assert.Empty(t, tm.fake.Merges())

	code, msg := answerOnBoard(t, browser, tm.url, "acme/widgets#7", q.Seq, "merge", page.CSRF)
	require.Equal(t, http.StatusOK, code, msg)
	assert.Eventually(t, func() bool { return len(tm.fake.Merges()) == 1 }, time.Minute, 100*time.Millisecond, "the user's own answer merges, once")
	code, msg = answerOnBoard(t, browser, tm.url, "acme/widgets#7", q.Seq, "merge", page.CSRF)
	assert.Equal(t, http.StatusConflict, code, "the question is answered: %s", msg)
	assert.Len(t, tm.fake.Merges(), 1)
}

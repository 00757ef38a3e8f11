package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
)

// REST calls (replies, review requests, re-runs, job logs, merge, and the dispatcher's label and
// assignee writes) go through google/go-github, built here once per Client on the client's own
// transport: it authenticates, holds requests back at the token's Gate, retries what may be
// retried, types the failures and keeps the token out of them. Two go-github behaviours are
// switched off so they cannot second-guess the transport:
//
//   - its rate-limit bookkeeping (WithDisableRateLimitCheck): the Gate alone decides when a request
//     may go out, for every client of the token, across restarts;
//   - redirects: none is followed. A mutation is never re-sent by a redirect, and a job log's
//     redirect is looked at and downloaded by hand, without the token (joblog.go).

// newREST builds go-github on hc's transport for the REST root rest (validated), with redirects
// left unfollowed. It returns the client and the redirect-free *http.Client under it.
func newREST(hc *http.Client, rest, userAgent string) (*github.Client, *http.Client, error) {
	noFollow := &http.Client{
		Transport:     hc.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	base := strings.TrimRight(rest, "/") + "/"
	gh, err := github.NewClient(
		github.WithHTTPClient(noFollow),
		github.WithURLs(&base, &base),
		github.WithDisableRateLimitCheck(),
		github.WithUserAgent(userAgent),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("set up the GitHub REST client: %w", err)
	}
	return gh, noFollow, nil
}

// REST returns go-github on the client's transport (see rest.go): every REST call of prmonitor
// goes through it. Its own rate-limit checks are off and it follows no redirect.
func (c *Client) REST() *github.Client { return c.rest }

// RESTStatusError is a REST answer prmonitor did not expect or cannot act on by itself: a 422
// (validation failed), 405, 409, 410, an unexpected redirect. Message is GitHub's explanation,
// one line.
type RESTStatusError struct {
	Status  int
	Message string
}

func (e *RESTStatusError) Error() string {
	if e.Message == "" {
		return "GitHub answered HTTP " + strconv.Itoa(e.Status)
	}
	return "GitHub answered HTTP " + strconv.Itoa(e.Status) + ": " + e.Message
}

// restError makes an error from go-github fit to return:
//
//   - the transport's typed errors (401, 403, 404, rate limits, 5xx, no connection) as they are,
//     unwrapped from net/http's *url.Error and without the token;
//   - an answer the transport passes on (400, 405, 409, 410, 422, a redirect, a 202) as a
//     *RESTStatusError with GitHub's reason;
//   - a success whose answer could not be read as ErrUnavailable: the request may have been acted
//     on, and the caller checks before trying again.
func (c *Client) restError(ctx context.Context, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return &RESTStatusError{Status: er.Response.StatusCode, Message: c.restMessage(er)}
	}
	var re *github.RedirectionError
	if errors.As(err, &re) {
		return &RESTStatusError{Status: re.StatusCode, Message: "an unexpected redirect"}
	}
	var ae *github.AcceptedError
	if errors.As(err, &ae) {
		return &RESTStatusError{Status: http.StatusAccepted, Message: "accepted, not done yet"}
	}
	if resp != nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return newAPIError(ErrUnavailable, c.transport.token,
			fmt.Sprintf("HTTP %d answer unreadable: %v", resp.StatusCode, err), err)
	}
	return c.callError(err)
}

// restMessage is GitHub's explanation in an error answer: "message", followed by the details of
// "errors" (a 422 lists what failed validation), folded onto one line without the token.
func (c *Client) restMessage(e *github.ErrorResponse) string {
	parts := []string{}
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	for _, d := range e.Errors {
		switch {
		case d.Message != "":
			parts = append(parts, d.Message)
		case d.Code != "":
			parts = append(parts, strings.TrimSpace(strings.Join([]string{d.Resource, d.Field, d.Code}, " ")))
		}
	}
	return oneLine(c.transport.token.scrub(strings.Join(parts, "; ")))
}

// checkRef rejects a reference no request should be built from.
func checkRef(ref prstatus.PRRef) error {
	if ref.Owner == "" || ref.Repo == "" || ref.Number <= 0 || ref.Number > 1<<31-1 {
		return fmt.Errorf("%w: %q", prstatus.ErrBadRef, ref.String())
	}
	return nil
}

// repoArgs are the owner and repository as go-github puts them into a path: escaped, so that a
// name can never reach another path than its own.
func repoArgs(ref prstatus.PRRef) (owner, repo string) {
	return url.PathEscape(ref.Owner), url.PathEscape(ref.Repo)
}

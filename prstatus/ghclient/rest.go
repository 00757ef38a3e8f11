package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// REST calls (replies, review requests, re-runs, job logs, merge) are plain net/http requests
// through the client's own transport, which authenticates, classifies and retries. They are few,
// and each one needs its exact status (201, 302, 405, 409, 422), its redirect left unfollowed and
// its retries decided here, which a general REST client would get in the way of.

// restAPIVersion is the REST API version prmonitor is written against.
const restAPIVersion = "2022-11-28"

// maxRESTBody bounds a REST response read into memory (a comment or pull request is a few KiB).
const maxRESTBody = 1 << 20

// restResponse is a REST answer the transport did not turn into an error: 2xx, 3xx, and 4xx
// statuses other than 401, 403, 404 and 429.
type restResponse struct {
	status int
	header http.Header
	body   []byte
}

func (r restResponse) ok() bool { return r.status >= 200 && r.status < 300 }

// restClient is the client's HTTP client without redirect following: a 302 to a log download is
// looked at, never followed blindly, and a mutation is never re-sent by a redirect.
func (c *Client) restClient() *http.Client {
	return &http.Client{
		Transport:     c.http.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// restStream sends one REST request (in, when not nil, is JSON-encoded) and returns the response
// with its body open. Errors are the transport's typed ones, fit to return.
func (c *Client) restStream(ctx context.Context, method, path string, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoints.REST+path, body)
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", c.callError(err))
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", restAPIVersion)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.restClient().Do(req)
	if err != nil {
		return nil, c.callError(err)
	}
	return resp, nil
}

// restDo sends one REST request and reads the whole answer. A connection lost while reading the
// answer is ErrUnavailable: the request may have been acted on.
func (c *Client) restDo(ctx context.Context, method, path string, in any) (restResponse, error) {
	resp, err := c.restStream(ctx, method, path, in)
	if err != nil {
		return restResponse{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRESTBody))
	if err != nil {
		if ctx.Err() != nil {
			return restResponse{}, context.Cause(ctx)
		}
		return restResponse{}, newAPIError(ErrUnavailable, c.transport.token,
			fmt.Sprintf("HTTP %d answer cut off: %v", resp.StatusCode, err), err)
	}
	return restResponse{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

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

// statusErr builds the error for an answer the caller cannot use.
func (c *Client) statusErr(r restResponse) error {
	return &RESTStatusError{Status: r.status, Message: c.restMessage(r.body)}
}

// restMessage is GitHub's explanation in an error body: "message", followed by the details of
// "errors" (a 422 lists what failed validation), folded onto one line without the token.
func (c *Client) restMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
		Errors  []struct {
			Message  string `json:"message"`
			Code     string `json:"code"`
			Field    string `json:"field"`
			Resource string `json:"resource"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
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

// decodeJSON reads a successful answer into v.
func decodeJSON(r restResponse, v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("GitHub's HTTP %d answer is not the JSON expected: %w", r.status, err)
	}
	return nil
}

// checkRef rejects a reference no request should be built from.
func checkRef(ref prstatus.PRRef) error {
	if ref.Owner == "" || ref.Repo == "" || ref.Number <= 0 || ref.Number > 1<<31-1 {
		return fmt.Errorf("%w: %q", prstatus.ErrBadRef, ref.String())
	}
	return nil
}

// repoPath is the REST path of the reference's repository, escaped.
func repoPath(ref prstatus.PRRef) string {
	return "/repos/" + url.PathEscape(ref.Owner) + "/" + url.PathEscape(ref.Repo)
}

// pullPath is the REST path of the pull request, escaped.
func pullPath(ref prstatus.PRRef) string {
	return repoPath(ref) + "/pulls/" + strconv.Itoa(ref.Number)
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

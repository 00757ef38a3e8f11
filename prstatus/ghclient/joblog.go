package ghclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// maxLogTail bounds JobLogTail's maxBytes: the tail is held in memory.
const maxLogTail = 16 << 20

// Range requests: when a log is much longer than the tail wanted, only its end is downloaded.
// The cleaned tail is shorter than the raw bytes (timestamps and escapes go), so a window of
// rangeFactor times maxBytes is fetched first, and a window rangeFactor times larger whenever the
// last one did not fill the tail, until it does or the window would be most of the log: the text
// is then exactly what the whole log gives. Ranges are used only when they save minRangeSaving
// bytes.
const (
	rangeFactor    = 4
	minRangeSaving = 256 << 10
)

// errNoLocation: the redirect to the log names no place a log can be downloaded from.
var errNoLocation = errors.New("GitHub answered HTTP 302 without a usable download location")

// errLinkExpired: the short-lived log URL no longer works.
var errLinkExpired = errors.New("the log download link expired or was refused")

// JobLogTail fetches the last maxBytes of a job's log (see LogTail):
//
//   - REST GET .../actions/jobs/{id}/logs answers 302 with a URL on another host that expires
//     after a minute (go-github returns that URL and follows nothing). It is downloaded at once,
//     by hand, without the token: the request's context forbids the transport to add it, whatever
//     the host;
//   - the log is streamed through a cleaner into a ring buffer of maxBytes: memory stays bounded
//     whatever the log's size. When the log host says the length and accepts ranges, and the log
//     is far longer than the tail, the download is abandoned after its headers and only the end
//     is fetched again with a Range request;
//   - a link that is refused, gone or expired (403, 404, 410 from the log host) costs one more
//     round: a new redirect, a new download. A second refusal is an error.
func (c *Client) JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (LogTail, error) {
	what := fmt.Sprintf("log of job %d on %s", jobID, ref)
	switch err := checkRef(ref); {
	case err != nil:
		return LogTail{}, fmt.Errorf("%s: %w", what, err)
	case jobID <= 0:
		return LogTail{}, fmt.Errorf("%s: no job id", what)
	case maxBytes <= 0:
		return LogTail{}, fmt.Errorf("%s: maxBytes must be positive, not %d", what, maxBytes)
	}
	maxBytes = min(maxBytes, maxLogTail)
	for try := 1; ; try++ {
		tail, err := c.jobLogTail(ctx, ref, jobID, maxBytes)
		if errors.Is(err, errLinkExpired) && try == 1 && ctx.Err() == nil {
			c.log.DebugContext(ctx, "log link refused; asking for a new one", "pr", ref.String(), "job", jobID, "error", err.Error())
			continue
		}
		if err != nil {
			return LogTail{}, fmt.Errorf("%s: %w", what, err)
		}
		tail.Text = c.in.text(tail.Text) // a failing job may print the token
		return tail, nil
	}
}

// jobLogTail asks GitHub where the log is (go-github's GetWorkflowJobLogs, which returns the
// redirect's location without following it) and downloads its tail.
func (c *Client) jobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (LogTail, error) {
	owner, repo := repoArgs(ref)
	loc, resp, err := c.rest.Actions.GetWorkflowJobLogs(ctx, owner, repo, jobID, 0)
	switch {
	case err == nil:
	case resp != nil && resp.StatusCode == http.StatusFound:
		// The location did not parse; its text (a signed URL) stays out of the error.
		return LogTail{}, errNoLocation
	case resp != nil:
		// An answer the transport passed on that is not the redirect (go-github closed its body).
		return LogTail{}, &RESTStatusError{Status: resp.StatusCode, Message: "expected a redirect to the log"}
	default:
		return LogTail{}, c.restError(ctx, resp, err)
	}
	if loc == nil || (loc.Host == "" && loc.Path == "") {
		return LogTail{}, errNoLocation // an empty location would name the API root itself
	}
	u := c.restRoot.ResolveReference(loc) // GitHub Enterprise Server may name a path on its own host
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return LogTail{}, errNoLocation
	}
	return c.downloadTail(ctx, u, maxBytes)
}

// downloadTail downloads the log at u (pre-signed: no token) and keeps its tail.
func (c *Client) downloadTail(ctx context.Context, u *url.URL, maxBytes int) (LogTail, error) {
	ctx = withMark(ctx, markTokenless)
	resp, err := c.download(ctx, u, "")
	if err != nil {
		return LogTail{}, err
	}
	total := resp.ContentLength
	window := int64(maxBytes) * rangeFactor
	if resp.StatusCode != http.StatusOK || !acceptsRanges(resp.Header) || total-window < minRangeSaving {
		defer resp.Body.Close()
		return tailOf(ctx, resp, maxBytes, false, -1)
	}
	discard(resp) // the headers said enough: only the end is wanted
	for ; total-window >= minRangeSaving; window *= rangeFactor {
		tail, done, err := c.rangeTail(ctx, u, total-window, total, maxBytes)
		if err != nil || done {
			return tail, err
		}
		c.log.DebugContext(ctx, "log window too short for the tail; widening it", "window", window)
	}
	resp, err = c.download(ctx, u, "")
	if err != nil {
		return LogTail{}, err
	}
	defer resp.Body.Close()
	return tailOf(ctx, resp, maxBytes, false, -1)
}

// rangeTail downloads the log from byte from on. done is false when that window held less cleaned
// text than the tail wants (a wider one is needed).
func (c *Client) rangeTail(ctx context.Context, u *url.URL, from, total int64, maxBytes int) (LogTail, bool, error) {
	resp, err := c.download(ctx, u, "bytes="+strconv.FormatInt(from, 10)+"-")
	if err != nil {
		return LogTail{}, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent { // the range was ignored: the whole log
		tail, err := tailOf(ctx, resp, maxBytes, false, -1)
		return tail, true, err
	}
	start, size := contentRange(resp.Header.Get("Content-Range"), from, total)
	t, err := readTail(ctx, resp.Body, maxBytes, start > 0)
	if err != nil {
		return LogTail{}, false, err
	}
	return LogTail{Text: t.text, Truncated: t.truncated, Bytes: size}, t.full || start == 0, nil
}

// download sends one GET for a log URL. A refusal that a fresh link may cure is errLinkExpired.
func (c *Client) download(ctx context.Context, u *url.URL, byteRange string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build the log download: %w", c.callError(err))
	}
	if byteRange != "" {
		req.Header.Set("Range", byteRange)
	}
	resp, err := c.noFollow.Do(req)
	if err != nil {
		err = c.callError(err)
		switch {
		case errors.Is(err, ErrForbidden):
			return nil, fmt.Errorf("%w (HTTP 403 from the log host)", errLinkExpired)
		case errors.Is(err, ErrNotFound):
			return nil, fmt.Errorf("%w (HTTP 404 from the log host)", errLinkExpired)
		}
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusPartialContent:
		return resp, nil
	case http.StatusGone, http.StatusRequestedRangeNotSatisfiable:
		discard(resp)
		return nil, fmt.Errorf("%w (HTTP %d from the log host)", errLinkExpired, resp.StatusCode)
	}
	discard(resp)
	return nil, &RESTStatusError{Status: resp.StatusCode, Message: "unexpected answer from the log host"}
}

// tailOf reads a download's tail. size is the whole log's length when known (else -1: counted).
func tailOf(ctx context.Context, resp *http.Response, maxBytes int, midLine bool, size int64) (LogTail, error) {
	t, err := readTail(ctx, resp.Body, maxBytes, midLine)
	if err != nil {
		return LogTail{}, err
	}
	if size < t.raw {
		size = t.raw
	}
	return LogTail{Text: t.text, Truncated: t.truncated, Bytes: size}, nil
}

// contentRange reads "bytes START-END/SIZE"; what it cannot read is taken from the request.
func contentRange(h string, from, total int64) (start, size int64) {
	start, size = from, total
	spec, ok := strings.CutPrefix(strings.TrimSpace(h), "bytes ")
	if !ok {
		return start, size
	}
	rng, sz, _ := strings.Cut(spec, "/")
	first, _, _ := strings.Cut(rng, "-")
	if n, err := strconv.ParseInt(first, 10, 64); err == nil && n >= 0 {
		start = n
	}
	if n, err := strconv.ParseInt(sz, 10, 64); err == nil && n > 0 {
		size = n
	}
	return start, size
}

func acceptsRanges(h http.Header) bool {
	return strings.Contains(strings.ToLower(h.Get("Accept-Ranges")), "bytes")
}

// discard closes a response whose body is not wanted.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
}

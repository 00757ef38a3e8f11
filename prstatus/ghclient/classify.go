package ghclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// classifyStatus turns a REST or GraphQL HTTP failure into a typed error. body is the start of
// the response body (GitHub's JSON error). It returns nil for statuses that are not classified
// (2xx, 3xx, 400, 409, 422, ...): those reach the caller as responses.
func classifyStatus(resp *http.Response, body []byte, now time.Time, tok Token) error {
	code := resp.StatusCode
	msg := githubMessage(body)
	detail := fmt.Sprintf("HTTP %d", code)
	if msg != "" {
		detail += ": " + msg
	}
	switch {
	case code == http.StatusUnauthorized:
		return newAPIError(ErrUnauthorized, tok, msg, nil)
	case code == http.StatusForbidden || code == http.StatusTooManyRequests:
		if rl, ok := rateLimitError(resp.Header, oneLine(tok.scrub(msg)), now, code == http.StatusTooManyRequests); ok {
			return rl
		}
		return newAPIError(ErrForbidden, tok, msg, nil)
	case code == http.StatusNotFound:
		return newAPIError(ErrNotFound, tok, msg, nil)
	case code >= 500:
		return newAPIError(ErrUnavailable, tok, detail, &statusError{code: code})
	}
	return nil
}

// githubMessage extracts "message" from a GitHub JSON error body, or "" when the body is not one
// (an HTML error page, say, which is not worth showing).
func githubMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Message
}

// graphQLError is one entry of a GraphQL response's "errors", with GitHub's "type" extension.
type graphQLError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

// somethingWentWrong starts the message GitHub sends with HTTP 200 when a query timed out or
// failed inside GitHub: transient.
const somethingWentWrong = "something went wrong while executing your query"

// classifyGraphQL inspects the "errors" of a GraphQL response that came with HTTP 200. It returns
// a typed error for RATE_LIMITED, NOT_FOUND, FORBIDDEN / INSUFFICIENT_SCOPES and GitHub's
// transient failures, and nil otherwise (githubv4 then reports the errors itself). With partial
// set, NOT_FOUND and FORBIDDEN are left to the sender, which reads them per alias, and so is a
// transient failure that names a path: GitHub answered the rest (a partial answer).
func classifyGraphQL(h http.Header, body []byte, now time.Time, tok Token, partial bool) error {
	if !bytes.Contains(body, []byte(`"errors"`)) {
		return nil
	}
	var out struct {
		Errors []graphQLError `json:"errors"`
	}
	if json.Unmarshal(body, &out) != nil || len(out.Errors) == 0 {
		return nil
	}
	find := func(types ...string) (graphQLError, bool) {
		for _, e := range out.Errors {
			for _, t := range types {
				if e.Type == t {
					return e, true
				}
			}
		}
		return graphQLError{}, false
	}
	if e, ok := find("RATE_LIMITED"); ok {
		rl, _ := rateLimitError(h, oneLine(tok.scrub(e.Message)), now, true)
		return rl
	}
	if e, ok := find("NOT_FOUND"); ok && !partial {
		return newAPIError(ErrNotFound, tok, e.Message, nil)
	}
	if e, ok := find("FORBIDDEN", "INSUFFICIENT_SCOPES"); ok && !partial {
		return newAPIError(ErrForbidden, tok, e.Message, nil)
	}
	for _, e := range out.Errors {
		if partial && len(e.Path) > 0 {
			continue
		}
		if e.Type == "" && strings.HasPrefix(strings.ToLower(e.Message), somethingWentWrong) {
			return newAPIError(ErrUnavailable, tok, e.Message, &timeoutError{})
		}
	}
	return nil
}

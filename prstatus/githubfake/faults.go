package githubfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"time"
)

// Match selects the requests a fault applies to. Zero fields match anything.
type Match struct {
	Kind RequestKind
	// Operation is "query" or "mutation" (GraphQL).
	Operation string
	// Mutation is a top-level mutation field name, e.g. "resolveReviewThread" (GraphQL).
	Mutation string
	// Method is the HTTP method (REST).
	Method string
	// Path is a path.Match pattern over the REST path without any /api/v3 prefix, e.g.
	// "/repos/*/*/pulls/*/merge" (each * is one path segment).
	Path string
}

// MatchGraphQLQuery matches every GraphQL query (not mutations).
func MatchGraphQLQuery() Match { return Match{Kind: KindGraphQL, Operation: OpQuery} }

// MatchMutation matches GraphQL mutations; name "" matches every mutation.
func MatchMutation(name string) Match {
	return Match{Kind: KindGraphQL, Operation: OpMutation, Mutation: name}
}

// MatchREST matches REST calls by method ("" for any) and path pattern ("" for any).
func MatchREST(method, pattern string) Match {
	return Match{Kind: KindREST, Method: method, Path: pattern}
}

// MatchDownload matches downloads from the short-lived URLs a REST call redirected to (job logs).
func MatchDownload() Match { return Match{Kind: KindDownload} }

func (m Match) matches(r *Request) bool {
	if m.Kind != "" && m.Kind != r.Kind {
		return false
	}
	if m.Operation != "" && m.Operation != r.Operation {
		return false
	}
	if m.Mutation != "" && m.Mutation != r.Mutation {
		return false
	}
	if m.Method != "" && !strings.EqualFold(m.Method, r.Method) {
		return false
	}
	if m.Path != "" {
		ok, err := path.Match(m.Path, strings.TrimPrefix(r.Path, enterpriseRESTPrefix))
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// GraphQL error types GitHub uses.
const (
	ErrTypeRateLimited   = "RATE_LIMITED"
	ErrTypeNotFound      = "NOT_FOUND"
	ErrTypeForbidden     = "FORBIDDEN"
	ErrTypeInternal      = "INTERNAL"
	ErrTypeUnprocessable = "UNPROCESSABLE"
)

// Fault is an injected failure. The effects combine: a Delay is waited first (honouring the
// request's context), then the connection is dropped, or the response is an HTTP error (Status),
// or a GraphQL error (GraphQLError). A fault with only a Delay lets the request through after it.
//
// With After, the request is carried out first and the fault replaces GitHub's answer: the
// operation happened, but the client never learns it (a proxy's 502 after the backend committed,
// a connection lost on the way back). A retry must then find the work already done.
type Fault struct {
	Match Match
	// Times is how many matching requests the fault answers; 0 means every one.
	Times int
	// After performs the request before answering with the fault (the delay, too, comes after).
	After bool

	// Delay is real time waited before anything else.
	Delay time.Duration
	// Drop closes the connection without a response.
	Drop bool
	// Status is an HTTP error status: 500, 502, 503, 504, or 403/429 for a secondary limit.
	Status int
	// RetryAfter sets a Retry-After header (whole seconds).
	RetryAfter time.Duration
	// RateLimited sets x-ratelimit-remaining: 0 and an x-ratelimit-reset RetryAfter (or one
	// minute) from now in fake time.
	RateLimited bool
	// GraphQLError answers HTTP 200 with a GraphQL error of this type (RATE_LIMITED, NOT_FOUND,
	// FORBIDDEN, INTERNAL, ...).
	GraphQLError string
	// Message replaces the default error message.
	Message string
	// PartialPaths makes a GraphQL answer partial, as GitHub's is when part of a heavy query
	// timed out: the request is carried out (and charged), then each path's value in data (a
	// dotted path of response keys, e.g. "r0.p7" for an alias under an alias) becomes null with
	// an error of type GraphQLError ("" as on a timeout, with GitHub's message) naming that path.
	PartialPaths []string
}

// timeoutMessage is what GitHub says when part of a query timed out.
const timeoutMessage = "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please try again."

func (ft Fault) String() string {
	var parts []string
	if ft.After {
		parts = append(parts, "after the operation")
	}
	if ft.Delay > 0 {
		parts = append(parts, "delay "+ft.Delay.String())
	}
	if ft.Drop {
		parts = append(parts, "drop")
	}
	if ft.Status != 0 {
		parts = append(parts, "HTTP "+strconv.Itoa(ft.Status))
	}
	if ft.GraphQLError != "" {
		parts = append(parts, "GraphQL "+ft.GraphQLError)
	}
	if ft.RateLimited {
		parts = append(parts, "rate limited")
	}
	if len(ft.PartialPaths) > 0 {
		parts = append(parts, "partial: "+strings.Join(ft.PartialPaths, ", "))
	}
	if ft.RetryAfter > 0 {
		parts = append(parts, "retry after "+ft.RetryAfter.String())
	}
	return strings.Join(parts, ", ")
}

type faultState struct {
	Fault
	hits int
}

// FaultHandle reports on one injected fault.
type FaultHandle struct {
	f  *Fake
	st *faultState
}

// Hits is how many requests the fault has answered so far.
func (h *FaultHandle) Hits() int {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	return h.st.hits
}

// Remove stops the fault.
func (h *FaultHandle) Remove() {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	for i, st := range h.f.faults {
		if st == h.st {
			h.f.faults = append(h.f.faults[:i], h.f.faults[i+1:]...)
			return
		}
	}
}

// InjectFault adds a fault. Faults are tried in the order added; the first that matches and has
// uses left answers the request.
func (f *Fake) InjectFault(ft Fault) *FaultHandle {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := &faultState{Fault: ft}
	f.faults = append(f.faults, st)
	return &FaultHandle{f: f, st: st}
}

// ClearFaults removes every fault.
func (f *Fake) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

func (f *Fake) takeFault(rec *Request) (Fault, time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, st := range f.faults {
		if st.Times > 0 && st.hits >= st.Times {
			continue
		}
		if !st.Match.matches(rec) {
			continue
		}
		st.hits++
		return st.Fault, f.clock.now(), true
	}
	return Fault{}, time.Time{}, false
}

// serveWithFaults runs serve, the request's real handling, unless an injected fault answers the
// request instead. An After fault runs serve first, into a recorder, and then answers; a fault
// that turns out to have nothing to answer with (only a delay) lets the real response through.
func (f *Fake) serveWithFaults(w *statusWriter, r *http.Request, rec *Request, serve func(http.ResponseWriter)) {
	ft, now, ok := f.takeFault(rec)
	if !ok {
		serve(w)
		return
	}
	rec.Fault = ft.String()
	if len(ft.PartialPaths) > 0 && rec.Kind == KindGraphQL {
		done := httptest.NewRecorder()
		serve(done)
		for k, v := range done.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(done.Code)
		_, _ = w.Write(partialAnswer(done.Body.Bytes(), ft))
		return
	}
	if !ft.After {
		if !f.answerFault(w, r, rec, ft, now) {
			serve(w)
		}
		return
	}
	done := httptest.NewRecorder()
	serve(done)
	if f.answerFault(w, r, rec, ft, f.Now()) {
		return
	}
	for k, v := range done.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(done.Code)
	_, _ = w.Write(done.Body.Bytes())
}

// answerFault answers the request with the fault. It reports whether the request is finished
// (false: the fault was only a delay, carry on).
func (f *Fake) answerFault(w *statusWriter, r *http.Request, rec *Request, ft Fault, now time.Time) bool {
	if ft.Delay > 0 {
		t := time.NewTimer(ft.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true
		}
	}
	if ft.Drop {
		w.drop()
		return true
	}
	if ft.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((ft.RetryAfter+time.Second-1)/time.Second)))
	}
	if ft.RateLimited {
		wait := ft.RetryAfter
		if wait <= 0 {
			wait = time.Minute
		}
		limit := f.limitFor(rec.Kind)
		rateHeaders{limit: limit, remaining: 0, used: limit, reset: now.Add(wait).Unix(), resource: resourceFor(rec.Kind)}.set(w)
	}
	switch {
	case ft.Status != 0:
		writeMessage(w, ft.Status, faultMessage(ft))
		return true
	case ft.GraphQLError != "":
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   nil,
			"errors": []any{map[string]any{"type": ft.GraphQLError, "message": faultMessage(ft)}},
		})
		return true
	case ft.RateLimited && rec.Kind == KindGraphQL:
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   nil,
			"errors": []any{map[string]any{"type": ErrTypeRateLimited, "message": faultMessage(Fault{GraphQLError: ErrTypeRateLimited, Message: ft.Message})}},
		})
		return true
	case ft.RateLimited:
		msg := ft.Message
		if msg == "" {
			msg = "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID."
		}
		writeMessage(w, http.StatusForbidden, msg)
		return true
	}
	return false // only a delay (and maybe a Retry-After header): carry on
}

func (f *Fake) limitFor(kind RequestKind) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if kind == KindGraphQL {
		return f.graphqlRate.limit
	}
	return f.restRate.limit
}

func resourceFor(kind RequestKind) string {
	if kind == KindGraphQL {
		return "graphql"
	}
	return "core"
}

func faultMessage(ft Fault) string {
	if ft.Message != "" {
		return ft.Message
	}
	switch ft.GraphQLError {
	case ErrTypeRateLimited:
		return "API rate limit exceeded for user ID 1."
	case ErrTypeNotFound:
		return "Could not resolve to a node."
	case ErrTypeForbidden:
		return "Resource not accessible by integration"
	case ErrTypeInternal:
		return "Something went wrong while executing your query. Please include `0000:0000:0000000:0000000:00000000` when reporting this issue."
	case "":
	default:
		return fmt.Sprintf("githubfake: injected %s error", ft.GraphQLError)
	}
	switch ft.Status {
	case http.StatusForbidden, http.StatusTooManyRequests:
		return "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
	case http.StatusBadGateway:
		return "Server Error"
	case http.StatusServiceUnavailable:
		return "Service Unavailable"
	case http.StatusGatewayTimeout:
		return "We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists."
	}
	return http.StatusText(ft.Status)
}

// partialAnswer nulls the fault's paths in a GraphQL answer and names each in an error. A body
// that is not a JSON object is left alone.
func partialAnswer(body []byte, ft Fault) []byte {
	var resp map[string]any
	if json.Unmarshal(body, &resp) != nil {
		return body
	}
	data, _ := resp["data"].(map[string]any)
	errs, _ := resp["errors"].([]any)
	msg := ft.Message
	if msg == "" {
		msg = timeoutMessage
		if ft.GraphQLError != "" {
			msg = faultMessage(Fault{GraphQLError: ft.GraphQLError})
		}
	}
	for _, p := range ft.PartialPaths {
		keys := strings.Split(p, ".")
		obj := data
		for _, k := range keys[:len(keys)-1] {
			obj, _ = obj[k].(map[string]any)
		}
		if obj == nil {
			continue
		}
		obj[keys[len(keys)-1]] = nil
		path := make([]any, len(keys))
		for i, k := range keys {
			path[i] = k
		}
		e := map[string]any{"message": msg, "path": path}
		if ft.GraphQLError != "" {
			e["type"] = ft.GraphQLError
		}
		errs = append(errs, e)
	}
	resp["errors"] = errs
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}

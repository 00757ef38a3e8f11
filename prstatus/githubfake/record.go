package githubfake

import (
	"path"
	"strings"
	"time"
)

// RequestKind tells GraphQL from REST requests.
type RequestKind string

// Request kinds. A download is a request to a short-lived URL a REST call redirected to (a job
// log); on GitHub it goes to another host and does not count against the API.
const (
	KindGraphQL  RequestKind = "graphql"
	KindREST     RequestKind = "rest"
	KindDownload RequestKind = "download"
)

// GraphQL operation types, as Request.Operation spells them.
const (
	OpQuery    = "query"
	OpMutation = "mutation"
)

// Request is one recorded request.
type Request struct {
	At     time.Time // fake time
	Method string
	Path   string
	Query  string // raw URL query
	Kind   RequestKind
	// Operation is "query" or "mutation" for GraphQL ("" when the document did not parse).
	Operation     string
	OperationName string
	// Mutation is the first top-level field of a mutation (e.g. "resolveReviewThread").
	Mutation  string
	Document  string
	Variables map[string]any
	// Body is a REST request's body.
	Body string
	// Auth is true when the request carried an Authorization header (a log download must not).
	Auth bool
	// APIVersion is the X-GitHub-Api-Version the request named ("" when none).
	APIVersion string
	Status     int // 0 when the connection was dropped or the client went away
	// Fault describes the injected fault that answered the request, if one did.
	Fault string
}

// IsMerge reports whether the request asked to merge a pull request (REST PUT .../pulls/{n}/merge
// or the mergePullRequest mutation), whatever the answer. Code that narrates or checks recorded
// requests can use it instead of spelling out merge paths, which prmonitor's static safety test
// allows only in the one merge executor.
func (r Request) IsMerge() bool {
	if r.Kind == KindGraphQL {
		return r.Mutation == "mergePullRequest"
	}
	if r.Kind != KindREST || r.Method != "PUT" {
		return false
	}
	ok, err := path.Match("/repos/*/*/pulls/*/merge", strings.TrimPrefix(r.Path, enterpriseRESTPrefix))
	return err == nil && ok
}

// ForbiddenCall is a request the fake refused because prmonitor must never make it: closing a
// pull request or deleting a branch.
type ForbiddenCall struct {
	At     time.Time
	Kind   RequestKind
	Method string
	Path   string
	// What is "close pull request" or "delete branch".
	What string
	// Detail is the mutation name or the ref, when known.
	Detail string
}

// Merge is one merge attempt, through REST or GraphQL, successful or not.
type Merge struct {
	At     time.Time
	Ref    Ref
	Via    RequestKind
	Method string // merge, squash or rebase
	SHA    string // the head the caller expected ("" when not given)
	Merged bool
	// Refusal is why GitHub refused it (HTTP 405/409 message), when it did.
	Refusal string
	// Through is "" for a merge someone asked for, ThroughAutoMerge or ThroughMergeQueue for one
	// GitHub did by itself.
	Through string
}

// record appends to the request log. The log has its own lock: a request is recorded when its
// status is written, which may happen while a handler holds the model's lock.
func (f *Fake) record(r Request) {
	f.recMu.Lock()
	defer f.recMu.Unlock()
	f.requests = append(f.requests, r)
}

// Requests returns every recorded request, oldest first.
func (f *Fake) Requests() []Request {
	f.recMu.Lock()
	defer f.recMu.Unlock()
	return append([]Request(nil), f.requests...)
}

// ResetRecording forgets the recorded requests, forbidden calls and merges.
func (f *Fake) ResetRecording() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recMu.Lock()
	defer f.recMu.Unlock()
	f.requests = nil
	f.forbidden = nil
	f.merges = nil
}

func (f *Fake) count(keep func(Request) bool) int {
	f.recMu.Lock()
	defer f.recMu.Unlock()
	n := 0
	for _, r := range f.requests {
		if keep(r) {
			n++
		}
	}
	return n
}

// GraphQLQueries counts recorded GraphQL query operations.
func (f *Fake) GraphQLQueries() int {
	return f.count(func(r Request) bool { return r.Kind == KindGraphQL && r.Operation == OpQuery })
}

// GraphQLMutations counts recorded GraphQL mutation operations.
func (f *Fake) GraphQLMutations() int {
	return f.count(func(r Request) bool { return r.Kind == KindGraphQL && r.Operation == OpMutation })
}

// MutationCalls counts recorded GraphQL mutations whose top-level field is name.
func (f *Fake) MutationCalls(name string) int {
	return f.count(func(r Request) bool { return r.Kind == KindGraphQL && r.Mutation == name })
}

// RESTCalls counts recorded REST API calls (log downloads excluded).
func (f *Fake) RESTCalls() int {
	return f.count(func(r Request) bool { return r.Kind == KindREST })
}

// Documents lists every distinct GraphQL document received, in the order first seen.
func (f *Fake) Documents() []string {
	f.recMu.Lock()
	defer f.recMu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, r := range f.requests {
		if r.Kind != KindGraphQL || r.Document == "" || seen[r.Document] {
			continue
		}
		seen[r.Document] = true
		out = append(out, r.Document)
	}
	return out
}

// Forbidden returns the refused close-PR and delete-branch calls. prmonitor's tests assert it is
// empty.
func (f *Fake) Forbidden() []ForbiddenCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ForbiddenCall(nil), f.forbidden...)
}

// Merges returns every merge attempt.
func (f *Fake) Merges() []Merge {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Merge(nil), f.merges...)
}

func (f *Fake) forbidLocked(kind RequestKind, method, path, what, detail string) {
	f.forbidden = append(f.forbidden, ForbiddenCall{
		At: f.clock.now(), Kind: kind, Method: method, Path: path, What: what, Detail: detail,
	})
}

// recordMergeLocked stores a merge attempt and returns the hook to call once the lock is released.
func (f *Fake) recordMergeLocked(m Merge) func() {
	f.merges = append(f.merges, m)
	if hook := f.mergeHook; hook != nil {
		return func() { hook(m) }
	}
	return func() {}
}

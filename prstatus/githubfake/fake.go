package githubfake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/prmonitor/prmonitor/prstatus/ghschema"
)

// InProcessURL is the base URL to use with HTTPClient when the fake was not started on a port.
// Any host works in-process; this one only reads well in logs.
const InProcessURL = "http://githubfake.invalid"

// Fake is an in-memory GitHub. Create it with New; it is safe for concurrent use.
type Fake struct {
	mu sync.Mutex

	clock  clock
	ids    *ids
	token  string
	viewer Actor

	accounts map[string]*account
	teams    map[string]*teamAccount
	repos    map[string]*Repository
	nodes    map[string]any
	comments map[int64]*ReviewComment
	jobs     map[int64]*CheckRun
	runs     map[int64]*WorkflowRun
	logLinks map[string]logLink
	due      []dueCompletion

	graphqlRate rateWindow
	restRate    rateWindow

	faults    []*faultState
	recMu     sync.Mutex // guards requests only; never held while taking mu
	requests  []Request
	forbidden []ForbiddenCall
	merges    []Merge

	associations map[string]string // lowercase login → authorAssociation (WithAssociation)

	mergeHook      func(Merge)
	rerunHook      RerunHook
	pendingReplies bool
	logExpiry      time.Duration
	lazy           LazyMergeability
	notAdmin       bool
	onPush         *WorkflowOnPush
	pushDue        []pushDue
	// afterSettle are merge hook calls of merges GitHub did by itself (auto-merge, the merge
	// queue) while settling: made once the lock is released (unlock).
	afterSettle []func()

	schema    *ast.Schema
	resolvers map[string]typeResolver
	mux       *http.ServeMux

	srv    *httptest.Server
	logSrv *httptest.Server // the log download host of a started fake
}

// account is an Actor with the ids GitHub gives it.
type account struct {
	Actor
	NodeID     string
	DatabaseID int64
	CreatedAt  time.Time
}

type teamAccount struct {
	Team
	NodeID     string
	OrgNodeID  string
	DatabaseID int64
}

// Option configures a Fake.
type Option func(*Fake)

// WithToken makes the fake accept exactly this token. By default any non-empty token is accepted.
func WithToken(token string) Option { return func(f *Fake) { f.token = token } }

// WithViewer sets the login of the token's user (default "octocat").
func WithViewer(login string) Option { return func(f *Fake) { f.viewer = User(login) } }

// WithClock bases the fake's time on now instead of its own clock starting at DefaultStart.
// Advance still moves the fake's time forward, on top of now. now is called with the fake locked:
// it must not call the fake.
func WithClock(now func() time.Time) Option { return func(f *Fake) { f.clock.base = now } }

// WithStart starts the fake's own clock at t instead of DefaultStart.
func WithStart(t time.Time) Option { return func(f *Fake) { f.clock.start = t } }

// WithRateLimit sets the hourly GraphQL point budget and REST request budget (default 5000).
func WithRateLimit(limit int) Option {
	return func(f *Fake) {
		f.graphqlRate.limit = limit
		f.restRate.limit = limit
	}
}

// WithMergeHook calls hook for every merge attempt, through REST or GraphQL, successful or
// refused. A test that expects no merge can fail from it. It runs after the fake is unlocked.
func WithMergeHook(hook func(Merge)) Option { return func(f *Fake) { f.mergeHook = hook } }

// LazyMergeability is how GitHub computes mergeability: lazily, in the background. After a push
// or when the base branch moves, mergeable reads UNKNOWN until the computation is done: OnItsOwn
// after the change (0: never by itself), or AfterGet after a REST GET of the pull request asked
// for it (GitHub starts the computation on that read).
type LazyMergeability struct {
	On       bool
	OnItsOwn time.Duration
	AfterGet time.Duration
}

// WithLazyMergeability makes mergeability lazy, as on GitHub (see LazyMergeability). Without it,
// a push or a moved base leaves mergeability as it was, computed at once.
func WithLazyMergeability(l LazyMergeability) Option {
	return func(f *Fake) {
		l.On = true
		f.lazy = l
	}
}

// WithoutAdmin makes the viewer a writer who is not an administrator: the base branch's protection
// rule then reads null (Ref.branchProtectionRule), as on GitHub; refUpdateRule and the rulesets'
// rules still show.
func WithoutAdmin() Option { return func(f *Fake) { f.notAdmin = true } }

// WorkflowOnPush is a GitHub Actions workflow that runs on every push to a pull request's head
// (and on its opening): its check runs register After the push, so that until then the head has
// no checks at all and its rollup is null, as right after a push on GitHub.
type WorkflowOnPush struct {
	Workflow string
	Jobs     []string
	After    time.Duration
}

// WithWorkflowOnPush registers w on every push (see WorkflowOnPush).
func WithWorkflowOnPush(w WorkflowOnPush) Option {
	return func(f *Fake) { f.onPush = &w }
}

// WithRerunHook decides how re-run check runs finish; see RerunHook. The hook runs with the fake
// locked: it must not call the fake.
func WithRerunHook(hook RerunHook) Option { return func(f *Fake) { f.rerunHook = hook } }

// WithPendingReplies makes GraphQL addPullRequestReviewThreadReply land in the viewer's pending
// review, invisible in the thread until that review is submitted: GitHub's real pitfall.
func WithPendingReplies(on bool) Option { return func(f *Fake) { f.pendingReplies = on } }

// WithAssociation makes GitHub report association (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR,
// FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE) as the authorAssociation of everything
// login writes. Without it a person is a MEMBER and a bot has NONE. A bot's login is given without
// "[bot]".
func WithAssociation(login, association string) Option {
	return func(f *Fake) {
		if f.associations == nil {
			f.associations = map[string]string{}
		}
		f.associations[strings.ToLower(strings.TrimSuffix(login, "[bot]"))] = association
	}
}

// SetAssociation is WithAssociation on a running fake: from now on, GitHub reports association
// for everything login wrote, before or after.
func (f *Fake) SetAssociation(login, association string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	WithAssociation(login, association)(f)
}

// New returns a fake GitHub with no repositories. It fails only if GitHub's schema cannot be
// loaded, which is a build defect.
func New(opts ...Option) (*Fake, error) {
	schema, err := ghschema.Load()
	if err != nil {
		return nil, fmt.Errorf("githubfake: %w", err)
	}
	f := &Fake{
		clock:       clock{start: DefaultStart()},
		ids:         newIDs(),
		viewer:      User("octocat"),
		accounts:    map[string]*account{},
		teams:       map[string]*teamAccount{},
		repos:       map[string]*Repository{},
		nodes:       map[string]any{},
		comments:    map[int64]*ReviewComment{},
		jobs:        map[int64]*CheckRun{},
		runs:        map[int64]*WorkflowRun{},
		logLinks:    map[string]logLink{},
		graphqlRate: rateWindow{limit: 5000, resource: "graphql"},
		restRate:    rateWindow{limit: 5000, resource: "core"},
		logExpiry:   time.Minute,
		schema:      schema,
	}
	for _, o := range opts {
		o(f)
	}
	f.resolvers = newResolvers()
	f.mux = f.newRESTMux()
	f.accountLocked(f.viewer)
	return f, nil
}

// MustNew is New for tests and the demo: it panics if the embedded schema is broken.
func MustNew(opts ...Option) *Fake {
	f, err := New(opts...)
	if err != nil {
		panic(err)
	}
	return f
}

// Viewer is the token's user.
func (f *Fake) Viewer() Actor {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.viewer
}

// SetPendingReplies switches the pending-review pitfall on or off (see WithPendingReplies).
func (f *Fake) SetPendingReplies(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pendingReplies = on
}

// SetRerunHook replaces the re-run hook (see RerunHook).
func (f *Fake) SetRerunHook(hook RerunHook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rerunHook = hook
}

// SetMergeHook replaces the merge hook (see WithMergeHook).
func (f *Fake) SetMergeHook(hook func(Merge)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mergeHook = hook
}

// Handler serves the fake's GraphQL and REST API.
func (f *Fake) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Start serves the fake on a loopback port and returns its base URL (REST root; GraphQL is at
// URL + "/graphql"). Calling Start twice returns the same URL. Job log downloads are served from a
// second port, another host as on GitHub (LogURL).
func (f *Fake) Start() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv == nil {
		f.srv = httptest.NewServer(f.Handler())
		f.logSrv = httptest.NewServer(http.HandlerFunc(f.serveLogHost))
	}
	return f.srv.URL
}

// LogURL is the base URL job log redirects point at: the log host of a started fake, or URL().
func (f *Fake) LogURL() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.logSrv != nil:
		return f.logSrv.URL
	case f.srv != nil:
		return f.srv.URL
	}
	return InProcessURL
}

// serveLogHost is the log host: pre-signed log URLs and nothing else.
func (f *Fake) serveLogHost(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, logPathPrefix) {
		http.Error(w, "githubfake: the log host serves log URLs only", http.StatusNotFound)
		return
	}
	f.serveHTTP(w, r)
}

// URL is the base URL: the started server's, or InProcessURL.
func (f *Fake) URL() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv != nil {
		return f.srv.URL
	}
	return InProcessURL
}

// GraphQLURL is URL() + "/graphql".
func (f *Fake) GraphQLURL() string { return f.URL() + "/graphql" }

// Close stops the servers started by Start, if any.
func (f *Fake) Close() {
	f.mu.Lock()
	srv, logSrv := f.srv, f.logSrv
	f.srv, f.logSrv = nil, nil
	f.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
	if logSrv != nil {
		logSrv.Close()
	}
}

// HTTPClient returns a client whose transport calls the fake's handler directly: no sockets.
// Use it with any base URL (InProcessURL reads well). It follows redirects like any client.
func (f *Fake) HTTPClient() *http.Client {
	return &http.Client{Transport: inProcess{h: f.Handler()}}
}

// errDropped is what an in-process client sees when a fault drops the connection.
var errDropped = errors.New("githubfake: connection dropped by an injected fault")

type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	if r.Body == nil {
		r.Body = http.NoBody
	}
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	w := &memWriter{header: http.Header{}}
	t.h.ServeHTTP(w, r)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	if w.dropped {
		return nil, errDropped
	}
	if err := req.Context().Err(); err != nil && w.status == 0 {
		return nil, fmt.Errorf("githubfake: %w", err)
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// memWriter is the in-process response: a recorder that can also be "hijacked" to drop.
type memWriter struct {
	header  http.Header
	status  int
	body    bytes.Buffer
	dropped bool
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

func (w *memWriter) drop() { w.dropped = true }

// ref helpers

func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// repoLocked returns the repository, or nil.
func (f *Fake) repoLocked(owner, name string) *Repository { return f.repos[repoKey(owner, name)] }

// prLocked returns the pull request, or nil.
func (f *Fake) prLocked(ref Ref) *PullRequest {
	r := f.repoLocked(ref.Owner, ref.Repo)
	if r == nil {
		return nil
	}
	return r.PullRequests[ref.Number]
}

// accountLocked registers a (and gives it ids) the first time it is seen.
func (f *Fake) accountLocked(a Actor) *account {
	if a.Type == "" {
		a.Type = TypeUser
	}
	key := string(a.Type) + ":" + strings.ToLower(a.Login)
	if acc, ok := f.accounts[key]; ok {
		return acc
	}
	prefix := prefixUser
	switch a.Type {
	case TypeBot:
		prefix = prefixBot
	case TypeMannequin:
		prefix = prefixMannequin
	}
	acc := &account{Actor: a, NodeID: f.ids.node(prefix), DatabaseID: f.ids.db("account"), CreatedAt: f.clock.now().AddDate(-3, 0, 0)}
	f.accounts[key] = acc
	f.nodes[acc.NodeID] = acc
	return acc
}

func (f *Fake) teamLocked(t Team) *teamAccount {
	key := strings.ToLower(t.String())
	if ta, ok := f.teams[key]; ok {
		return ta
	}
	ta := &teamAccount{Team: t, NodeID: f.ids.node(prefixTeam), OrgNodeID: f.ids.node(prefixOrg), DatabaseID: f.ids.db("account")}
	f.teams[key] = ta
	f.nodes[ta.NodeID] = ta
	return ta
}

// ensureRepoLocked returns the repository, creating it the first time.
func (f *Fake) ensureRepoLocked(owner, name string) *Repository {
	if r := f.repoLocked(owner, name); r != nil {
		return r
	}
	r := &Repository{
		Owner: owner, Name: name, ID: f.ids.node(prefixRepository), DatabaseID: f.ids.db("repo"),
		DefaultBranch: "main", CreatedAt: f.clock.now().AddDate(-1, 0, 0),
		PullRequests: map[int]*PullRequest{}, Runs: map[int64]*WorkflowRun{},
		ownerID: f.ids.node(prefixOrg),
	}
	f.repos[repoKey(owner, name)] = r
	f.nodes[r.ID] = r
	return r
}

// AddRepository creates an empty repository (OpenPR creates one when needed).
func (f *Fake) AddRepository(owner, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ensureRepoLocked(owner, name)
}

package ghclient_test

// Every GraphQL document prmonitor can send is validated against GitHub's public schema.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shurcooL/githubv4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/ghschema"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// sendable is one way prmonitor talks to GitHub's GraphQL API: a pull request set up on the fake
// (with faults, for the documents only a failure sends), and a call that makes the client send its
// documents. wantDocs is how many GraphQL requests the call costs on that pull request.
type sendable struct {
	name     string
	setup    []githubfake.Event
	faults   []githubfake.Fault
	send     func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error
	wantDocs int
	// maxCost is the most points any of the row's documents costs by GitHub's formula.
	maxCost int
}

// workSetup is a pull request with a review thread and an approval, ready to merge.
var workSetup = []githubfake.Event{
	githubfake.OpenPR{Title: "t"},
	githubfake.RequestChanges(alice, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "nil?"}),
	githubfake.Approve(alice, ""),
}

func replyCall(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
	th, err := f.PR(githubfake.Ref(ref)).Thread(0)
	if err != nil {
		return err
	}
	_, err = c.PostReply(ctx, ref, ghclient.ReplyRequest{
		ThreadID: th.ID, ReplyToID: th.Comments[0].DatabaseID, Body: "Done.",
		Marker: prstatus.Marker{Round: "1", Thread: th.ID, Kind: prstatus.ReplyAddressed},
	})
	return err
}

func resolveCall(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
	th, err := f.PR(githubfake.Ref(ref)).Thread(0)
	if err != nil {
		return err
	}
	return c.ResolveThread(ctx, th.ID)
}

func snapshotCall(ctx context.Context, c *ghclient.Client, _ *githubfake.Fake) error {
	_, err := c.Snapshot(ctx, ref)
	return err
}

// fingerprintsCall reads the fingerprints of a full batch: 100 pull requests in 10 repositories,
// one of them missing.
func fingerprintsCall(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
	refs := make([]prstatus.PRRef, 0, ghclient.MaxFingerprintBatch)
	for i := range ghclient.MaxFingerprintBatch {
		r := prstatus.PRRef{Owner: "acme", Repo: fmt.Sprintf("repo%d", i%10), Number: 100 + i}
		refs = append(refs, r)
		if i == 0 {
			continue // missing
		}
		if err := f.Apply(githubfake.Ref(r), githubfake.OpenPR{Title: "t"}); err != nil {
			return err
		}
	}
	b, err := c.Fingerprints(ctx, refs)
	if err != nil {
		return err
	}
	if len(b.PRs) != len(refs) || !b.PRs[refs[0]].Missing || b.PRs[refs[1]].Missing {
		return fmt.Errorf("fingerprints: unexpected answer %+v", b.PRs[refs[0]])
	}
	return nil
}

// fingerprintsOfCall reads a full batch of 100 pull requests with the thread states of every one
// and the check counts of checks of them: 100 + checks connections.
func fingerprintsOfCall(checks int) func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
	return func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
		reqs := make([]ghclient.FingerprintRequest, 0, ghclient.MaxFingerprintBatch)
		for i := range ghclient.MaxFingerprintBatch {
			r := prstatus.PRRef{Owner: "acme", Repo: fmt.Sprintf("repo%d", i%10), Number: 100 + i}
			reqs = append(reqs, ghclient.FingerprintRequest{Ref: r, Threads: true, Checks: i < checks})
			if err := f.Apply(githubfake.Ref(r), githubfake.OpenPR{Title: "t"}); err != nil {
				return err
			}
		}
		b, err := c.FingerprintsOf(ctx, reqs)
		if err == nil && len(b.PRs) != len(reqs) {
			err = fmt.Errorf("fingerprints: %d answers for %d pull requests", len(b.PRs), len(reqs))
		}
		return err
	}
}

// documentsPrmonitorCanSend is the table of every GraphQL document the client can send. Add a row
// for each new query or mutation (drive the client so that it goes out); the test validates
// whatever the row sends.
var documentsPrmonitorCanSend = []sendable{
	{
		name:     "snapshot",
		setup:    []githubfake.Event{githubfake.OpenPR{Title: "t"}},
		send:     snapshotCall,
		wantDocs: 1,
		maxCost:  3,
	},
	{
		name:     "fingerprints of 100 pull requests",
		send:     fingerprintsCall,
		wantDocs: 1,
		maxCost:  1,
	},
	{
		// The watcher's largest 1-point batch: ghclient.OnePointConnections connections.
		name:     "fingerprints of 100 pull requests with every thread state and 49 check counts",
		send:     fingerprintsOfCall(ghclient.OnePointConnections - ghclient.MaxFingerprintBatch),
		wantDocs: 1,
		maxCost:  1,
	},
	{
		name:     "fingerprints of 100 pull requests with every thread state and 50 check counts (one too many)",
		send:     fingerprintsOfCall(ghclient.OnePointConnections - ghclient.MaxFingerprintBatch + 1),
		wantDocs: 1,
		maxCost:  2,
	},
	{
		name:     "snapshot + review threads page",
		setup:    []githubfake.Event{githubfake.OpenPR{Title: "t"}, githubfake.CommentReview(copilot, "", githubfake.Threads(101, "a.go")...)},
		send:     snapshotCall,
		wantDocs: 2,
		maxCost:  3,
	},
	{
		name:     "snapshot + check contexts page",
		setup:    []githubfake.Event{githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: githubfake.JobNames(101, "job")}},
		send:     snapshotCall,
		wantDocs: 2,
		maxCost:  3,
	},
	{
		name: "snapshot + older commits page",
		setup: []githubfake.Event{
			githubfake.OpenPR{Title: "t"},
			githubfake.Push{Commits: func() []githubfake.NewCommit {
				out := make([]githubfake.NewCommit, 100)
				for i := range out {
					out[i].Merge = true
				}
				return out
			}()},
		},
		send:     snapshotCall,
		wantDocs: 2,
		maxCost:  3,
	},
	{
		name:  "head SHA",
		setup: []githubfake.Event{githubfake.OpenPR{Title: "t"}},
		send: func(ctx context.Context, c *ghclient.Client, _ *githubfake.Fake) error {
			_, err := c.HeadSHA(ctx, ref)
			return err
		},
		wantDocs: 1,
		maxCost:  1,
	},
	{name: "reply: the thread read", setup: workSetup, send: replyCall, wantDocs: 1, maxCost: 1},
	{
		name:     "reply: the thread read again after a lost answer",
		setup:    workSetup,
		faults:   []githubfake.Fault{{Match: githubfake.MatchREST("POST", ""), After: true, Status: 502, Times: 1}},
		send:     replyCall,
		wantDocs: 2,
		maxCost:  1,
	},
	{name: "resolve a thread", setup: workSetup, send: resolveCall, wantDocs: 1, maxCost: 1},
	{
		name:     "resolve a thread: the state read after a final failure",
		setup:    workSetup,
		faults:   []githubfake.Fault{{Match: githubfake.MatchMutation("resolveReviewThread"), After: true, GraphQLError: githubfake.ErrTypeInternal, Times: 1}},
		send:     resolveCall,
		wantDocs: 2,
		maxCost:  1,
	},
	{
		name:  "the viewer's open pull requests (pr_monitor_start_all)",
		setup: []githubfake.Event{githubfake.OpenPR{Title: "t"}},
		send: func(ctx context.Context, c *ghclient.Client, _ *githubfake.Fake) error {
			_, err := c.OpenPRs(ctx, ghclient.OpenPRsQuery{Assigned: true, ReviewRequested: true})
			return err
		},
		wantDocs: 1,
		maxCost:  1,
	},
	{
		name:   "merge: the pull request read after a lost answer",
		setup:  workSetup,
		faults: []githubfake.Fault{{Match: githubfake.MatchREST("PUT", ""), After: true, Status: 502, Times: 1}},
		send: func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
			_, err := c.Merge(ctx, ref, ghclient.MergeRequest{ExpectedHeadSHA: f.PR(githubfake.Ref(ref)).HeadOID()})
			return err
		},
		wantDocs: 1,
		maxCost:  1,
	},
	{
		name:  "auto-merge: the pull request read, enabled, then disabled",
		setup: waitingPR,
		send: func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
			if _, err := c.EnableAutoMerge(ctx, ref, ghclient.AutoMergeRequest{Method: "squash", ExpectedHeadSHA: f.PR(githubfake.Ref(ref)).HeadOID()}); err != nil {
				return err
			}
			_, err := c.DisableAutoMerge(ctx, ref)
			return err
		},
		wantDocs: 4,
		maxCost:  1,
	},
	{
		name:  "merge queue: the pull request read and enqueued",
		setup: []githubfake.Event{githubfake.OpenPR{Title: "t"}, githubfake.AddRuleset{MergeQueue: true}},
		send: func(ctx context.Context, c *ghclient.Client, f *githubfake.Fake) error {
			_, err := c.Enqueue(ctx, ref, f.PR(githubfake.Ref(ref)).HeadOID())
			return err
		},
		wantDocs: 2,
		maxCost:  1,
	},
}

func TestEveryDocumentIsValidAgainstGitHubsSchema(t *testing.T) {
	distinct := map[string]bool{}
	for _, row := range documentsPrmonitorCanSend {
		t.Run(row.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, row.setup...)
			for _, f := range row.faults {
				e.f.InjectFault(f)
			}
			e.rec.reset()
			require.NoError(t, row.send(t.Context(), e.c, e.f))
			docs := e.rec.documents()
			require.Len(t, docs, row.wantDocs)
			for _, d := range docs {
				distinct[d.Query] = true
				require.NoError(t, ghschema.Validate(d.Query, d.Variables), "document:\n%s\nvariables: %v", d.Query, d.Variables)
			}
		})
	}
	// The snapshot query and the three page queries; the head, thread and merge-state queries, the
	// fingerprint batch (with the check counts; with thread states and 49 or 50 check counts),
	// the open pull requests search and the resolve mutation; the merge-later state query and its
	// three mutations.
	assert.Len(t, distinct, 16)
}

// TestEveryDocumentCostsWhatGitHubsFormulaSays computes the point cost of every document the
// client sends with GitHub's published formula (githubfake.DocumentCost): one request per
// connection, multiplied by the page sizes of the connections around it, the sum divided by 100
// and rounded, at least 1. The fingerprint batch of 100 pull requests costs 1 point.
func TestEveryDocumentCostsWhatGitHubsFormulaSays(t *testing.T) {
	for _, row := range documentsPrmonitorCanSend {
		t.Run(row.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, row.setup...)
			for _, f := range row.faults {
				e.f.InjectFault(f)
			}
			e.rec.reset()
			require.NoError(t, row.send(t.Context(), e.c, e.f))
			worst := 0
			for _, d := range e.rec.documents() {
				cost, requests, err := githubfake.DocumentCost(d.Query, d.Variables)
				require.NoError(t, err)
				t.Logf("%d points (%d requests): %.80s", cost, requests, d.Query)
				worst = max(worst, cost)
			}
			assert.Equal(t, row.maxCost, worst, "the most points one document of %q costs", row.name)
		})
	}
}

func TestSchemaValidationCatchesABadField(t *testing.T) {
	var bad struct {
		Repository struct {
			PullRequest struct {
				Numbr int `graphql:"numbr"`
			} `graphql:"pullRequest(number: $number)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	rec := &recorder{next: roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
	})}
	_ = githubv4.NewEnterpriseClient("https://ghe.invalid/api/graphql", &http.Client{Transport: rec}).Query(
		t.Context(), &bad, map[string]any{"owner": githubv4.String("o"), "name": githubv4.String("r"), "number": githubv4.Int(1)})
	docs := rec.documents()
	require.Len(t, docs, 1)
	err := ghschema.Validate(docs[0].Query, docs[0].Variables)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Cannot query field "numbr" on type "PullRequest"`)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSnapshotDocumentIsStable pins the exact snapshot document: the one-request contract is
// reviewed, never changed by accident. Set PRMONITOR_UPDATE_GOLDEN=1 to rewrite the file.
func TestSnapshotDocumentIsStable(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"})
	e.rec.reset()
	require.NoError(t, snapshotCall(t.Context(), e.c, e.f))
	docs := e.rec.documents()
	require.Len(t, docs, 1)
	got := docs[0].Query + "\n"

	golden := filepath.Join("testdata", "snapshot_query.graphql")
	if os.Getenv("PRMONITOR_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with PRMONITOR_UPDATE_GOLDEN=1 to create %s", golden)
	assert.Equal(t, strings.TrimSpace(string(want)), strings.TrimSpace(got))
}

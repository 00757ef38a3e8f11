package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// MaxFingerprintBatch is the most pull requests one Fingerprints request reads. At 100, with one
// connection per pull request (the check counts), GitHub's formula gives 100 requests: 1 point.
const MaxFingerprintBatch = 100

// OnePointConnections is the most connections a fingerprint batch can read and still cost 1
// point: GitHub's formula counts one request per connection (the pull requests themselves are
// plain fields: none), divides by 100 and rounds, so 149 requests cost 1 point and 150 cost 2.
const OnePointConnections = 149

// threadsPage is how many review threads a fingerprint reads the resolved state of: GitHub's
// largest page. Threads past the first 100 are left to the snapshots.
const threadsPage = 100

// Fingerprint is what one cheap look at a pull request tells: plain fields only, no lists. Two
// fingerprints of the same pull request differ when something a monitor acts on changed (see
// package watch for which field catches which event). Changed names what differs; == works too
// (UpdatedAt is always UTC).
type Fingerprint struct {
	// Missing: the repository or pull request does not exist, or the token cannot see it.
	Missing   bool
	UpdatedAt time.Time
	HeadOID   string
	BaseOID   string
	State     string
	IsDraft   bool
	Mergeable string
	// MergeStateStatus is GitHub's mergeStateStatus (BLOCKED, BEHIND, CLEAN, DIRTY, ...).
	MergeStateStatus string
	ReviewDecision   string
	// TotalComments is totalCommentsCount: issue and review comments, so a new thread or a reply
	// in one moves it.
	TotalComments int
	// Rollup is the head commit's statusCheckRollup state ("" without checks).
	Rollup string
	// Checks is the rollup's check runs and status contexts counted by state, rendered
	// "run:IN_PROGRESS=1,run:SUCCESS=2,status:SUCCESS=1" ("none" without a rollup): any check that
	// starts or completes changes it. Empty when the request did not read it.
	Checks string
	// Threads is the resolved state of the first 100 review threads, rendered
	// "<resolved>/<total>:<hash of the states in order>": resolving or unresolving any thread
	// changes it, though GitHub moves no timestamp for it. Empty when the request did not read it.
	Threads string
}

// Over is f with what its request did not read (Checks, Threads) taken from an earlier
// fingerprint of the same pull request, so that the next comparison is with what was last seen.
func (f Fingerprint) Over(earlier Fingerprint) Fingerprint {
	if f.Missing {
		return f
	}
	if f.Checks == "" {
		f.Checks = earlier.Checks
	}
	if f.Threads == "" {
		f.Threads = earlier.Threads
	}
	return f
}

// ThreadsPrint renders the resolved states of review threads, in GitHub's order, as Fingerprint's
// Threads does; only the first 100 count. A snapshot's threads give the print a fingerprint
// would read at the same moment.
func ThreadsPrint(resolved []bool) string {
	resolved = resolved[:min(len(resolved), threadsPage)]
	h := fnv.New32a()
	n := 0
	for _, r := range resolved {
		b := byte('0')
		if r {
			b, n = '1', n+1
		}
		_, _ = h.Write([]byte{b})
	}
	return fmt.Sprintf("%d/%d:%08x", n, len(resolved), h.Sum32())
}

// SnapshotThreadsPrint is ThreadsPrint of a snapshot's review threads.
func SnapshotThreadsPrint(s *prstatus.Snapshot) string {
	resolved := make([]bool, len(s.Threads))
	for i, t := range s.Threads {
		resolved[i] = t.IsResolved
	}
	return ThreadsPrint(resolved)
}

// SnapshotChecksPrint is a snapshot's head checks counted by state as a fingerprint reads them
// (Fingerprint.Checks): a check run by its conclusion once completed, else its status; a commit
// status by its state; "none" without any. A snapshot that did not read every context (over a
// page) prints differently, which costs one more read, never a missed change.
func SnapshotChecksPrint(s *prstatus.Snapshot) string {
	if len(s.Checks) == 0 {
		return "none"
	}
	runs, statuses := map[string]int{}, map[string]int{}
	for _, c := range s.Checks {
		switch {
		case c.Kind == prstatus.KindStatusContext:
			statuses[c.State]++
		case c.Status == "COMPLETED" && c.Conclusion != "":
			runs[c.Conclusion]++
		default:
			runs[c.Status]++
		}
	}
	return countsString(stateCountsOf(runs), stateCountsOf(statuses))
}

func stateCountsOf(m map[string]int) []stateCount {
	out := make([]stateCount, 0, len(m))
	for state, n := range m {
		out = append(out, stateCount{State: state, Count: n})
	}
	return out
}

// Changed names the fields in which f and g differ, in a fixed order ("updatedAt", "headRefOid",
// ...: GitHub's names). It is empty when they are equal. Checks and Threads count only when both
// fingerprints read them.
func (f Fingerprint) Changed(g Fingerprint) []string {
	var out []string
	add := func(differ bool, name string) {
		if differ {
			out = append(out, name)
		}
	}
	add(f.Missing != g.Missing, "missing")
	add(!f.UpdatedAt.Equal(g.UpdatedAt), "updatedAt")
	add(f.HeadOID != g.HeadOID, "headRefOid")
	add(f.BaseOID != g.BaseOID, "baseRef.target.oid")
	add(f.State != g.State, "state")
	add(f.IsDraft != g.IsDraft, "isDraft")
	add(f.Mergeable != g.Mergeable, "mergeable")
	add(f.MergeStateStatus != g.MergeStateStatus, "mergeStateStatus")
	add(f.ReviewDecision != g.ReviewDecision, "reviewDecision")
	add(f.TotalComments != g.TotalComments, "totalCommentsCount")
	add(f.Rollup != g.Rollup, "statusCheckRollup.state")
	add(f.Checks != g.Checks && f.Checks != "" && g.Checks != "", "checkRunCountsByState")
	add(f.Threads != g.Threads && f.Threads != "" && g.Threads != "", "reviewThreads.isResolved")
	return out
}

// FingerprintBatch is the answer to one Fingerprints request.
type FingerprintBatch struct {
	// PRs has an entry for every reference asked about and answered; a missing one has Missing
	// set.
	PRs map[prstatus.PRRef]Fingerprint
	// Failed are the references GitHub answered with an error of their own (a part of a heavy
	// query that timed out, GitHub's transient failure): no fingerprint, read them again. The
	// value is GitHub's message, one line.
	Failed map[prstatus.PRRef]string
	// RateLimit is GitHub's rateLimit as of this request (Cost is what the request cost).
	RateLimit prstatus.RateLimit
}

// FingerprintRequest is one pull request of a batch and the connections read of it besides its
// plain fields: the check counts (Checks) and the review threads' resolved state (Threads). Each
// is one request by GitHub's formula: a batch costs 1 point up to OnePointConnections of them.
type FingerprintRequest struct {
	Ref     prstatus.PRRef
	Checks  bool
	Threads bool
}

// Fingerprint fragments: fp, the plain fields every look reads (the base tip, not baseRefOid,
// which lags it); fpC, fp and the check counts; fpT, fp and the threads' resolved states; fpCT,
// both.
const (
	fragmentPlain = `fragment fp on PullRequest{updatedAt headRefOid baseRef{target{oid}} state isDraft mergeable ` +
		`mergeStateStatus reviewDecision totalCommentsCount statusCheckRollup{state}}`
	fragmentChecks = `fragment fpC on PullRequest{...fp statusCheckRollup{contexts(first:1){` +
		`checkRunCountsByState{state count} statusContextCountsByState{state count}}}}`
	fragmentThreads = `fragment fpT on PullRequest{...fp reviewThreads(first:100){nodes{isResolved}}}`
	fragmentBoth    = `fragment fpCT on PullRequest{...fpC ...fpT}`
)

// fragmentName is the fragment a look with these connections spreads.
func fragmentName(checks, threads bool) string {
	switch {
	case checks && threads:
		return "fpCT"
	case checks:
		return "fpC"
	case threads:
		return "fpT"
	}
	return "fp"
}

// fragments are the fragment definitions a batch needs: those its looks spread and those they
// spread in turn (GitHub refuses an unused one).
func fragments(used map[[2]bool]bool) string {
	both := used[[2]bool{true, true}]
	out := fragmentPlain
	if both || used[[2]bool{true, false}] {
		out += fragmentChecks
	}
	if both || used[[2]bool{false, true}] {
		out += fragmentThreads
	}
	if both {
		out += fragmentBoth
	}
	return out
}

// Fingerprints reads the fingerprints of up to MaxFingerprintBatch pull requests in one GraphQL
// request, with the check counts of each (1 point for a full batch) and no thread state:
// FingerprintsOf with Checks for every reference.
func (c *Client) Fingerprints(ctx context.Context, refs []prstatus.PRRef) (FingerprintBatch, error) {
	reqs := make([]FingerprintRequest, len(refs))
	for i, r := range refs {
		reqs[i] = FingerprintRequest{Ref: r, Checks: true}
	}
	return c.FingerprintsOf(ctx, reqs)
}

// FingerprintsOf reads the fingerprints of up to MaxFingerprintBatch pull requests in one GraphQL
// request (aliases grouped by repository), each with the connections its request asks for,
// through the same transport as every other query: the Gate, rate-limit headers and retries
// apply. A repository or pull request that does not exist or that the token cannot see comes back
// Missing, never as an error for the batch; one GitHub could not answer (part of the query timed
// out) comes back in Failed while the others are kept. Duplicate references are read once, with
// every connection any of them asks for.
func (c *Client) FingerprintsOf(ctx context.Context, reqs []FingerprintRequest) (FingerprintBatch, error) {
	reqs = uniqueRequests(reqs)
	if len(reqs) == 0 {
		return FingerprintBatch{PRs: map[prstatus.PRRef]Fingerprint{}}, nil
	}
	if len(reqs) > MaxFingerprintBatch {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %d pull requests; at most %d a request", len(reqs), MaxFingerprintBatch)
	}
	for _, r := range reqs {
		if r.Ref.Owner == "" || r.Ref.Repo == "" || r.Ref.Number <= 0 || r.Ref.Number > 1<<31-1 {
			return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: %q", prstatus.ErrBadRef, r.Ref.String())
		}
	}
	doc, vars, aliases := fingerprintDocument(reqs)
	body, err := json.Marshal(map[string]any{"query": doc, "variables": vars})
	if err != nil {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %w", err)
	}
	ctx = withMark(withMark(ctx, markQuery), markPartial)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoints.GraphQL, bytes.NewReader(body))
	if err != nil {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %w", c.callError(err))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLBody))
	if err != nil {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: %w", ErrUnavailable, c.callError(err))
	}
	if resp.StatusCode != http.StatusOK {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: HTTP %d: %s", resp.StatusCode, oneLine(c.transport.token.scrub(githubMessage(data))))
	}
	return c.decodeFingerprints(data, aliases)
}

// prAlias is where one reference's answer is in the response: data[repo][pr].
type prAlias struct {
	repo, pr        string
	ref             prstatus.PRRef
	checks, threads bool
}

// fingerprintDocument builds the batch document: one aliased repository per owner/name (given as
// variables), one aliased pullRequest per number under it, the fragment of its connections, and
// rateLimit.
func fingerprintDocument(reqs []FingerprintRequest) (string, map[string]any, []prAlias) {
	type repoKey struct{ owner, name string }
	var order []repoKey
	byRepo := map[repoKey][]FingerprintRequest{}
	used := map[[2]bool]bool{}
	for _, r := range reqs {
		k := repoKey{r.Ref.Owner, r.Ref.Repo}
		if _, ok := byRepo[k]; !ok {
			order = append(order, k)
		}
		byRepo[k] = append(byRepo[k], r)
		used[[2]bool{r.Checks, r.Threads}] = true
	}
	var params, sel strings.Builder
	vars := map[string]any{}
	var aliases []prAlias
	for i, k := range order {
		o, n, ra := "o"+strconv.Itoa(i), "n"+strconv.Itoa(i), "r"+strconv.Itoa(i)
		if i > 0 {
			params.WriteByte(',')
		}
		fmt.Fprintf(&params, "$%s:String!,$%s:String!", o, n)
		vars[o], vars[n] = k.owner, k.name
		fmt.Fprintf(&sel, "%s:repository(owner:$%s,name:$%s){", ra, o, n)
		for _, r := range byRepo[k] {
			pa := "p" + strconv.Itoa(r.Ref.Number)
			fmt.Fprintf(&sel, "%s:pullRequest(number:%d){...%s}", pa, r.Ref.Number, fragmentName(r.Checks, r.Threads))
			aliases = append(aliases, prAlias{repo: ra, pr: pa, ref: r.Ref, checks: r.Checks, threads: r.Threads})
		}
		sel.WriteString("}")
	}
	doc := "query(" + params.String() + "){rateLimit{cost remaining limit resetAt}" + sel.String() + "}" + fragments(used)
	return doc, vars, aliases
}

type fingerprintNode struct {
	UpdatedAt  time.Time `json:"updatedAt"`
	HeadRefOid string    `json:"headRefOid"`
	BaseRef    *struct {
		Target *struct {
			Oid string `json:"oid"`
		} `json:"target"`
	} `json:"baseRef"`
	State              string  `json:"state"`
	IsDraft            bool    `json:"isDraft"`
	Mergeable          string  `json:"mergeable"`
	MergeStateStatus   string  `json:"mergeStateStatus"`
	ReviewDecision     *string `json:"reviewDecision"`
	TotalCommentsCount *int    `json:"totalCommentsCount"`
	StatusCheckRollup  *struct {
		State    string `json:"state"`
		Contexts *struct {
			CheckRunCountsByState      []stateCount `json:"checkRunCountsByState"`
			StatusContextCountsByState []stateCount `json:"statusContextCountsByState"`
		} `json:"contexts"`
	} `json:"statusCheckRollup"`
	ReviewThreads *struct {
		Nodes []*struct {
			IsResolved bool `json:"isResolved"`
		} `json:"nodes"`
	} `json:"reviewThreads"`
}

type stateCount struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

type fingerprintError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

func (c *Client) decodeFingerprints(data []byte, aliases []prAlias) (FingerprintBatch, error) {
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []fingerprintError         `json:"errors"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: malformed answer: %w", ErrUnavailable, err)
	}
	// An error with a path belongs to the alias it names: NOT_FOUND and FORBIDDEN mean that pull
	// request (or its repository) is missing; anything else (part of a heavy query that timed
	// out) means it was not answered, and the others are kept. An error without a path fails the
	// batch, as partial data is never taken for whole.
	failed := map[string]string{} // "repo" or "repo.pr" alias → GitHub's message
	for _, e := range out.Errors {
		if len(e.Path) == 0 {
			return FingerprintBatch{}, fmt.Errorf("fingerprints: GitHub: %s", oneLine(c.transport.token.scrub(e.Message)))
		}
		if e.Type == "NOT_FOUND" || e.Type == "FORBIDDEN" || e.Type == "INSUFFICIENT_SCOPES" {
			continue
		}
		failed[aliasPath(e.Path)] = oneLine(c.transport.token.scrub(e.Message))
	}
	batch := FingerprintBatch{PRs: make(map[prstatus.PRRef]Fingerprint, len(aliases)), Failed: map[prstatus.PRRef]string{}}
	var rl *rateLimitNode
	if raw, ok := out.Data["rateLimit"]; ok {
		if err := json.Unmarshal(raw, &rl); err != nil {
			return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: malformed rateLimit: %w", ErrUnavailable, err)
		}
	}
	batch.RateLimit = toRateLimit(rl)
	repos := map[string]map[string]*fingerprintNode{}
	for _, a := range aliases {
		prs, ok := repos[a.repo]
		if !ok {
			raw := out.Data[a.repo]
			if len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &prs); err != nil {
					return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: malformed answer for %s: %w", ErrUnavailable, a.ref, err)
				}
			}
			repos[a.repo] = prs
		}
		if msg, ok := failedAlias(failed, a); ok {
			batch.Failed[a.ref] = msg
			continue
		}
		n := prs[a.pr]
		if n == nil {
			batch.PRs[a.ref] = Fingerprint{Missing: true}
			continue
		}
		batch.PRs[a.ref] = n.fingerprint(a.checks, a.threads)
	}
	return batch, nil
}

// aliasPath renders an error's path down to the pull request's alias: "r0" or "r0.p7".
func aliasPath(path []any) string {
	var parts []string
	for _, p := range path[:min(len(path), 2)] {
		parts = append(parts, fmt.Sprint(p))
	}
	return strings.Join(parts, ".")
}

// failedAlias finds an error of a's pull request or of its whole repository.
func failedAlias(failed map[string]string, a prAlias) (string, bool) {
	if msg, ok := failed[a.repo+"."+a.pr]; ok {
		return msg, true
	}
	msg, ok := failed[a.repo]
	return msg, ok
}

func (n *fingerprintNode) fingerprint(checks, threads bool) Fingerprint {
	f := Fingerprint{
		UpdatedAt: n.UpdatedAt.UTC(), HeadOID: n.HeadRefOid, State: n.State,
		IsDraft: n.IsDraft, Mergeable: n.Mergeable, MergeStateStatus: n.MergeStateStatus,
		ReviewDecision: deref(n.ReviewDecision),
	}
	if n.BaseRef != nil && n.BaseRef.Target != nil {
		f.BaseOID = n.BaseRef.Target.Oid
	}
	if n.TotalCommentsCount != nil {
		f.TotalComments = *n.TotalCommentsCount
	}
	if checks {
		f.Checks = "none"
	}
	if r := n.StatusCheckRollup; r != nil {
		f.Rollup = r.State
		if r.Contexts != nil {
			f.Checks = countsString(r.Contexts.CheckRunCountsByState, r.Contexts.StatusContextCountsByState)
		}
	}
	if threads {
		var resolved []bool
		if n.ReviewThreads != nil {
			for _, t := range n.ReviewThreads.Nodes {
				resolved = append(resolved, t != nil && t.IsResolved)
			}
		}
		f.Threads = ThreadsPrint(resolved)
	}
	return f
}

func countsString(runs, statuses []stateCount) string {
	parts := make([]string, 0, len(runs)+len(statuses))
	for _, s := range runs {
		parts = append(parts, "run:"+s.State+"="+strconv.Itoa(s.Count))
	}
	for _, s := range statuses {
		parts = append(parts, "status:"+s.State+"="+strconv.Itoa(s.Count))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// uniqueRequests keeps one request per reference, with every connection any of them asked for.
func uniqueRequests(reqs []FingerprintRequest) []FingerprintRequest {
	at := make(map[prstatus.PRRef]int, len(reqs))
	out := make([]FingerprintRequest, 0, len(reqs))
	for _, r := range reqs {
		if i, ok := at[r.Ref]; ok {
			out[i].Checks = out[i].Checks || r.Checks
			out[i].Threads = out[i].Threads || r.Threads
			continue
		}
		at[r.Ref] = len(out)
		out = append(out, r)
	}
	return slices.Clip(out)
}

package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	// "run:IN_PROGRESS=1,run:SUCCESS=2,status:SUCCESS=1": any check that starts or completes
	// changes it.
	Checks string
}

// Changed names the fields in which f and g differ, in a fixed order ("updatedAt", "headRefOid",
// ...: GitHub's names). It is empty when they are equal.
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
	add(f.BaseOID != g.BaseOID, "baseRefOid")
	add(f.State != g.State, "state")
	add(f.IsDraft != g.IsDraft, "isDraft")
	add(f.Mergeable != g.Mergeable, "mergeable")
	add(f.MergeStateStatus != g.MergeStateStatus, "mergeStateStatus")
	add(f.ReviewDecision != g.ReviewDecision, "reviewDecision")
	add(f.TotalComments != g.TotalComments, "totalCommentsCount")
	add(f.Rollup != g.Rollup, "statusCheckRollup.state")
	add(f.Checks != g.Checks, "checkRunCountsByState")
	return out
}

// FingerprintBatch is the answer to one Fingerprints request.
type FingerprintBatch struct {
	// PRs has an entry for every reference asked about; a missing one has Missing set.
	PRs map[prstatus.PRRef]Fingerprint
	// RateLimit is GitHub's rateLimit as of this request (Cost is what the request cost).
	RateLimit prstatus.RateLimit
}

// fingerprintFragment is what is read of each pull request. statusCheckRollup.contexts is the only
// connection (first: 1, no nodes): one request per pull request by GitHub's formula.
const fingerprintFragment = `fragment fp on PullRequest{updatedAt headRefOid baseRefOid state isDraft mergeable ` +
	`mergeStateStatus reviewDecision totalCommentsCount statusCheckRollup{state contexts(first:1){` +
	`checkRunCountsByState{state count} statusContextCountsByState{state count}}}}`

// Fingerprints reads the fingerprints of up to MaxFingerprintBatch pull requests in one GraphQL
// request (aliases grouped by repository), through the same transport as every other query: the
// Gate, rate-limit headers and retries apply. A repository or pull request that does not exist or
// that the token cannot see comes back Missing, never as an error for the batch. Duplicate
// references are read once.
func (c *Client) Fingerprints(ctx context.Context, refs []prstatus.PRRef) (FingerprintBatch, error) {
	refs = uniqueRefs(refs)
	if len(refs) == 0 {
		return FingerprintBatch{PRs: map[prstatus.PRRef]Fingerprint{}}, nil
	}
	if len(refs) > MaxFingerprintBatch {
		return FingerprintBatch{}, fmt.Errorf("fingerprints: %d pull requests; at most %d a request", len(refs), MaxFingerprintBatch)
	}
	for _, r := range refs {
		if r.Owner == "" || r.Repo == "" || r.Number <= 0 || r.Number > 1<<31-1 {
			return FingerprintBatch{}, fmt.Errorf("fingerprints: %w: %q", prstatus.ErrBadRef, r.String())
		}
	}
	doc, vars, aliases := fingerprintDocument(refs)
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
	repo, pr string
	ref      prstatus.PRRef
}

// fingerprintDocument builds the batch document: one aliased repository per owner/name (given as
// variables), one aliased pullRequest per number under it, the fragment, and rateLimit.
func fingerprintDocument(refs []prstatus.PRRef) (string, map[string]any, []prAlias) {
	type repoKey struct{ owner, name string }
	var order []repoKey
	byRepo := map[repoKey][]prstatus.PRRef{}
	for _, r := range refs {
		k := repoKey{r.Owner, r.Repo}
		if _, ok := byRepo[k]; !ok {
			order = append(order, k)
		}
		byRepo[k] = append(byRepo[k], r)
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
			pa := "p" + strconv.Itoa(r.Number)
			fmt.Fprintf(&sel, "%s:pullRequest(number:%d){...fp}", pa, r.Number)
			aliases = append(aliases, prAlias{repo: ra, pr: pa, ref: r})
		}
		sel.WriteString("}")
	}
	doc := "query(" + params.String() + "){rateLimit{cost remaining limit resetAt}" + sel.String() + "}" + fingerprintFragment
	return doc, vars, aliases
}

type fingerprintNode struct {
	UpdatedAt          time.Time `json:"updatedAt"`
	HeadRefOid         string    `json:"headRefOid"`
	BaseRefOid         string    `json:"baseRefOid"`
	State              string    `json:"state"`
	IsDraft            bool      `json:"isDraft"`
	Mergeable          string    `json:"mergeable"`
	MergeStateStatus   string    `json:"mergeStateStatus"`
	ReviewDecision     *string   `json:"reviewDecision"`
	TotalCommentsCount *int      `json:"totalCommentsCount"`
	StatusCheckRollup  *struct {
		State    string `json:"state"`
		Contexts *struct {
			CheckRunCountsByState      []stateCount `json:"checkRunCountsByState"`
			StatusContextCountsByState []stateCount `json:"statusContextCountsByState"`
		} `json:"contexts"`
	} `json:"statusCheckRollup"`
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
	// NOT_FOUND and FORBIDDEN on an alias mean that pull request is missing; anything else fails
	// the batch, as partial data is never taken for whole.
	for _, e := range out.Errors {
		if (e.Type == "NOT_FOUND" || e.Type == "FORBIDDEN" || e.Type == "INSUFFICIENT_SCOPES") && len(e.Path) > 0 {
			continue
		}
		return FingerprintBatch{}, fmt.Errorf("fingerprints: GitHub: %s", oneLine(c.transport.token.scrub(e.Message)))
	}
	batch := FingerprintBatch{PRs: make(map[prstatus.PRRef]Fingerprint, len(aliases))}
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
		n := prs[a.pr]
		if n == nil {
			batch.PRs[a.ref] = Fingerprint{Missing: true}
			continue
		}
		batch.PRs[a.ref] = n.fingerprint()
	}
	return batch, nil
}

func (n *fingerprintNode) fingerprint() Fingerprint {
	f := Fingerprint{
		UpdatedAt: n.UpdatedAt.UTC(), HeadOID: n.HeadRefOid, BaseOID: n.BaseRefOid, State: n.State,
		IsDraft: n.IsDraft, Mergeable: n.Mergeable, MergeStateStatus: n.MergeStateStatus,
		ReviewDecision: deref(n.ReviewDecision),
	}
	if n.TotalCommentsCount != nil {
		f.TotalComments = *n.TotalCommentsCount
	}
	if r := n.StatusCheckRollup; r != nil {
		f.Rollup = r.State
		if r.Contexts != nil {
			f.Checks = countsString(r.Contexts.CheckRunCountsByState, r.Contexts.StatusContextCountsByState)
		}
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

func uniqueRefs(refs []prstatus.PRRef) []prstatus.PRRef {
	seen := make(map[prstatus.PRRef]bool, len(refs))
	out := make([]prstatus.PRRef, 0, len(refs))
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return slices.Clip(out)
}

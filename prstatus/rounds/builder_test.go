package rounds

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// The builder tells the review side of a pull request's story in time order (commits, reviews,
// threads and their replies) and derives its facts with prstatus.Derive: rounds reads nothing
// but those facts. prstatus's own tests have a fuller builder; an internal test there cannot
// import a package that imports prstatus, so the two cannot share one.

const (
	approved = prstatus.ReviewApproved
	cr       = prstatus.ReviewChangesRequested
	comment  = prstatus.ReviewCommented
)

var day0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// at reads "10:00" (on day0) or "+1d 10:00" (days later), in UTC.
func at(s string) time.Time {
	days, clock, later := strings.Cut(s, " ")
	if !later {
		days, clock = "+0d", s
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(days, "+"), "d"))
	hm, perr := time.Parse("15:04", clock)
	if err != nil || perr != nil {
		panic("bad time " + s)
	}
	return day0.AddDate(0, 0, n).Add(time.Duration(hm.Hour())*time.Hour + time.Duration(hm.Minute())*time.Minute)
}

// oid pads a short name into a 40-character object id.
func oid(name string) string { return name + strings.Repeat("0", max(0, 40-len(name))) }

type prBuilder struct {
	s prstatus.Snapshot
	n int
}

// aPR is an open PR by "dev", watched with dev's token, on branch feature.
func aPR() *prBuilder {
	return &prBuilder{s: prstatus.Snapshot{
		Ref:     prstatus.PRRef{Owner: "acme", Repo: "widget", Number: 7},
		Author:  prstatus.Actor{Login: "dev"},
		Viewer:  "dev",
		State:   prstatus.StateOpen,
		HeadRef: "feature",
	}}
}

func (b *prBuilder) with(f func(s *prstatus.Snapshot)) *prBuilder {
	f(&b.s)
	return b
}

// commit adds an ordinary commit authored and committed at when; it becomes the head.
func (b *prBuilder) commit(name, when string) *prBuilder {
	return b.rawCommit(prstatus.Commit{OID: oid(name), AuthoredDate: at(when), CommittedDate: at(when), Headline: "Fix " + name, ParentCount: 1})
}

func (b *prBuilder) rawCommit(c prstatus.Commit) *prBuilder {
	b.s.Commits = append(b.s.Commits, c)
	b.s.HeadOID = c.OID
	return b
}

// review submits a review on the current head.
func (b *prBuilder) review(who string, state prstatus.ReviewState, when string) *prBuilder {
	return b.reviewSaying(who, state, when, "review by "+who)
}

// reviewSaying submits a review with a body of its own.
func (b *prBuilder) reviewSaying(who string, state prstatus.ReviewState, when, body string) *prBuilder {
	b.n++
	b.s.Reviews = append(b.s.Reviews, prstatus.Review{
		ID: fmt.Sprintf("PRR_%d", b.n), Author: actor(who), AuthorAssociation: assocOf(who), State: state, Body: body, SubmittedAt: at(when), CommitOID: b.s.HeadOID,
	})
	return b
}

// truncateHistory keeps only the newest n reviews, as a long PR's first page does.
func (b *prBuilder) truncateHistory(n int) *prBuilder {
	b.s.Reviews = b.s.Reviews[max(0, len(b.s.Reviews)-n):]
	return b
}

// say is one comment in a thread.
type say struct {
	who, when, body string
}

func (b *prBuilder) resolvedThread(id string, comments ...say) *prBuilder {
	return b.rawThread(prstatus.Thread{ID: id, Path: "widget.go", Line: 12, IsResolved: true}, comments...)
}

func (b *prBuilder) rawThread(t prstatus.Thread, comments ...say) *prBuilder {
	for _, c := range comments {
		b.n++
		body := c.body
		if body == "" {
			body = "comment by " + c.who
		}
		t.Comments = append(t.Comments, prstatus.Comment{
			ID: fmt.Sprintf("PRRC_%d", b.n), DatabaseID: int64(1000 + b.n), Author: actor(c.who), AuthorAssociation: assocOf(c.who), Body: body, CreatedAt: at(c.when),
		})
	}
	t.TotalComments = len(t.Comments)
	b.s.Threads = append(b.s.Threads, t)
	return b
}

func actor(login string) prstatus.Actor {
	return prstatus.Actor{Login: login, IsBot: strings.HasSuffix(login, "[bot]")}
}

// assocOf is how a hand-built author relates to the repository, as GitHub would report it on a
// team's repository: people are members, bots (GitHub Apps) have no association.
func assocOf(login string) prstatus.Association {
	if actor(login).IsBot {
		return prstatus.AssocNone
	}
	return prstatus.AssocMember
}

func (b *prBuilder) build() *prstatus.Snapshot {
	s := b.s
	return &s
}

// derive runs Derive at a fixed time.
func (b *prBuilder) derive() prstatus.Facts { return prstatus.Derive(b.build(), at("+2d 12:00")) }

// shuffled is the snapshot with the lists rounds reads through Derive in another order.
func shuffled(s *prstatus.Snapshot, rng *rand.Rand) *prstatus.Snapshot {
	c := *s
	c.Reviews = shuffle(s.Reviews, rng)
	c.Threads = shuffle(s.Threads, rng)
	return &c
}

func shuffle[T any](in []T, rng *rand.Rand) []T {
	out := slices.Clone(in)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// gen builds review stories from a byte stream, for the fuzzer and the property tests: the PR's
// side and reviewers (case and bot variants), reviews in every state, threads whose comments may
// carry a marker (well-formed, forged or broken).
type gen struct {
	data []byte
	i    int
}

// randomGen is a generator over 120 random bytes.
func randomGen(rng *rand.Rand) *gen {
	g := &gen{data: make([]byte, 120)}
	for i := range g.data {
		g.data[i] = byte(rng.UintN(256))
	}
	return g
}

func (g *gen) pick(n int) int {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return int(g.data[g.i-1]) % n
}

func (g *gen) time() time.Time { return day0.Add(time.Duration(g.pick(256)) * 7 * time.Minute) }

func (g *gen) snapshot() *prstatus.Snapshot {
	logins := []string{"dev", "bob", "alice", "Bob", "copilot[bot]", "", "helper"}
	login := func() string { return logins[g.pick(len(logins))] }
	s := aPR().with(func(s *prstatus.Snapshot) {
		s.Author.Login = []string{"dev", "", "bob"}[g.pick(3)]
		s.Viewer = []string{"dev", "helper", ""}[g.pick(3)]
		s.HeadOID = oid("c1")
	}).build()
	states := []prstatus.ReviewState{approved, cr, comment, prstatus.ReviewDismissed, prstatus.ReviewPending, "BOGUS"}
	for i := range g.pick(8) {
		who := login()
		s.Reviews = append(s.Reviews, prstatus.Review{ID: fmt.Sprintf("R%d", i), Author: actor(who), AuthorAssociation: assocOf(who), State: states[g.pick(len(states))],
			Body: []string{"", "Fix it.", "  "}[g.pick(3)], SubmittedAt: g.time(), CommitOID: oid("c1")})
	}
	bodies := []string{"hm", prstatus.Marker{Round: "r", Thread: "T", Kind: prstatus.ReplyReplied}.String(), "<!-- prmonitor:v1 -->"}
	for i := range g.pick(6) {
		th := prstatus.Thread{ID: fmt.Sprintf("T%d", i), IsResolved: g.pick(4) == 0, Path: []string{"", "a.go"}[g.pick(2)], Line: g.pick(3)}
		for j := range g.pick(4) {
			who := login()
			th.Comments = append(th.Comments, prstatus.Comment{ID: fmt.Sprintf("C%d.%d", i, j), Author: actor(who), AuthorAssociation: assocOf(who),
				Body: bodies[g.pick(len(bodies))], CreatedAt: g.time()})
		}
		th.TotalComments = len(th.Comments)
		s.Threads = append(s.Threads, th)
	}
	return s
}

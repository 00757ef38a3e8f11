package githubfake

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Node id prefixes, as GitHub's new-style global ids spell them.
const (
	prefixPullRequest = "PR"
	prefixThread      = "PRRT"
	prefixComment     = "PRRC"
	prefixReview      = "PRR"
	prefixRepository  = "R"
	prefixUser        = "U"
	prefixBot         = "BOT"
	prefixMannequin   = "MQ"
	prefixTeam        = "T"
	prefixOrg         = "O"
	prefixCheckRun    = "CR"
	prefixCheckSuite  = "CS"
	prefixWorkflowRun = "WFR"
	prefixWorkflow    = "W"
	prefixStatus      = "SC"
	prefixCommit      = "C"
	prefixRequest     = "RR"
	prefixPRCommit    = "PURC"
)

// ids hands out deterministic identifiers: the same sequence of calls on two fakes yields the
// same ids, so tests and the demo are reproducible. Not safe for concurrent use: the fake's lock
// guards it.
type ids struct {
	seq     uint64
	counter map[string]int64
}

// dbBase is where each kind's database ids start, so ids look like GitHub's and never collide
// across kinds.
func dbBase(kind string) int64 {
	switch kind {
	case "pr":
		return 2_100_000_000
	case "review":
		return 2_600_000_000
	case "comment":
		return 1_900_000_000
	case "job":
		return 41_000_000_000
	case "run":
		return 15_000_000_000
	case "suite":
		return 36_000_000_000
	case "account":
		return 190_000
	case "repo":
		return 700_000_000
	case "request":
		return 9_000_000_000
	case "workflow":
		return 110_000_000
	}
	return 1_000_000
}

func newIDs() *ids { return &ids{counter: map[string]int64{}} }

// node returns a new global node id such as "PRRT_kwDOAbCd1234efgh".
func (g *ids) node(prefix string) string {
	g.seq++
	sum := sha1.Sum([]byte("githubfake/node/" + prefix + "/" + strconv.FormatUint(g.seq, 10)))
	tag := "kwDO"
	switch prefix {
	case prefixRepository, prefixUser, prefixBot, prefixOrg, prefixTeam, prefixMannequin:
		tag = "kgDO"
	}
	return prefix + "_" + tag + base64.RawURLEncoding.EncodeToString(sum[:9])
}

// db returns the next database id of a kind ("pr", "review", "comment", "job", ...).
func (g *ids) db(kind string) int64 {
	g.counter[kind]++
	return dbBase(kind) + g.counter[kind]*7 // spread out, as real ids are
}

// oid returns a new 40-hex git object id derived from seed and a sequence number.
func (g *ids) oid(seed string) string {
	g.seq++
	sum := sha1.Sum([]byte(fmt.Sprintf("githubfake/commit/%d/%s", g.seq, seed)))
	return hex.EncodeToString(sum[:])
}

// token returns an opaque string for short-lived URLs.
func (g *ids) token() string {
	g.seq++
	sum := sha1.Sum([]byte("githubfake/token/" + strconv.FormatUint(g.seq, 10)))
	return hex.EncodeToString(sum[:12])
}

func itoa(n int) string     { return strconv.Itoa(n) }
func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

// shortOID is a commit's id as people recognise it (ops_merge.go says why the fake has its own).
func shortOID(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

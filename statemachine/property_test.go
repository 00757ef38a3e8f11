package statemachine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// source is where random decisions come from: math/rand for the property test, fuzz bytes for the
// fuzzer.
type source interface {
	intn(n int) int
	done() bool
}

type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int { return s.r.IntN(n) }
func (s randSource) done() bool     { return false }

type byteSource struct{ b []byte }

func (s *byteSource) intn(n int) int {
	if len(s.b) == 0 || n <= 1 {
		return 0
	}
	v := int(s.b[0])
	s.b = s.b[1:]
	return v % n
}
func (s *byteSource) done() bool { return len(s.b) == 0 }

// situations are the pull requests a random walk polls.
var situations = []func() *pr{
	newPR,
	func() *pr { return newPR().failing() },
	func() *pr { return newPR().running() },
	func() *pr { return newPR().checks(check("test", "COMPLETED", "CANCELLED", 1001, 101)) },
	func() *pr {
		return newPR().checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("e2e", "IN_PROGRESS", "", 1005, 105))
	},
	func() *pr { return newPR().conflict() },
	crPR,
	func() *pr { return crPR().push("fix") },
	threePR,
	func() *pr { return newPR().thread("T1", "bob", "a.go", 1, "x") },
	func() *pr {
		return newPR().thread("T1", "bob", "a.go", 1, "x").reply("T1", "dev", "y").reply("T1", "bob", "z")
	},
	approvedPR,
	func() *pr { return approvedPR().push("c2") },
	func() *pr { return approvedPR().review("bob", prstatus.ReviewChangesRequested, "no") },
	func() *pr { p := newPR(); p.s.State = prstatus.StateMerged; return p },
	func() *pr { p := newPR(); p.s.State = prstatus.StateClosed; return p },
	func() *pr {
		return newPR().checks(prstatus.Check{Kind: prstatus.KindStatusContext, Name: "ext", State: "FAILURE"})
	},
	// A refine whose threads come back for a reply each, a round whose refine ended on an older
	// head, a bot's thread we answered, and a thread an approval settled.
	func() *pr { return crPR().thread("T1", "bob", "a.go", 1, "x").thread("T2", "bob", "b.go", 2, "y") },
	func() *pr {
		return newPR().thread("T1", "bob", "a.go", 1, "x").thread("T2", "bob", "b.go", 2, "y").push("fix")
	},
	func() *pr { return crPR().mergeBase("m1") },
	func() *pr {
		marker := prstatus.Marker{Round: "r1", Thread: "T1", Kind: prstatus.ReplyReplied}.String()
		return newPR().thread("T1", "copilot-pull-request-reviewer[bot]", "a.go", 1, "nit").reply("T1", "dev", "kept "+marker)
	},
	func() *pr {
		return newPR().thread("T1", "bob", "a.go", 1, "why?").reply("T1", "dev", "because").review("bob", prstatus.ReviewApproved, "ok")
	},
	behindPR,
	// A stacked pull request, approved (its next poll on main is a retarget).
	func() *pr { return approvedPR().stackedOn("aa1") },
	// Failures the base branch's tip shares: an Actions job, and a commit status.
	func() *pr { return newPR().failing().baseFailing("test") },
	func() *pr {
		p := newPR().checks(prstatus.Check{Kind: prstatus.KindStatusContext, Name: "ext", State: "FAILURE"})
		p.s.BaseOID, p.s.BaseChecks = sha("b1"), []prstatus.Check{{Kind: prstatus.KindStatusContext, Name: "ext", State: "ERROR"}}
		return p
	},
	// Auto-merge and merge queues: checks still running where auto-merge is allowed, auto-merge
	// on (and news under it), a merge queue, and a merge GitHub holds for a rule.
	whenReadyPR,
	autoMergedPR,
	func() *pr { return autoMergedPR().push("c2") },
	queuePR,
	heldPR,
}

var knownErrors = []error{ErrBadInput, ErrUnknownEvent, ErrNoQuestion, ErrChoiceNotOffered, ErrStaleAnswer, ErrUnexpectedOutcome, ErrNotTheUsersChoice}

// randomInput picks an input that is usually sensible for the machine's position and sometimes not.
func randomInput(src source, m *Machine) Input {
	pos := m.pos
	pick := func(n int) int { return src.intn(n) }
	anyEvent := func() Input {
		e := Events[pick(len(Events))]
		data := EventData{}
		if pick(2) == 0 {
			data.ReplyText = "reply"
		}
		if pick(3) == 0 {
			data.Recommendation, data.SuggestedFix, data.Findings = "rec", "fix", "findings"
		}
		values := []elicitation.Value{elicitation.Merge, elicitation.Stop, elicitation.Resume, elicitation.Skip, "bogus"}
		return EventInput(e, values[pick(len(values))], data)
	}
	if pick(50) == 0 {
		return StopInput()
	}
	switch pos.Node.State() {
	case StateAwaitingUser:
		switch r := pick(20); {
		case r < 12:
			by := []AnsweredBy{ByUser, ByUser, ByRelay, ""}[pick(4)] // the user's pick, a relay, or the agent's own
			return ChoiceInput(pos.Question.Choices[pick(len(pos.Question.Choices))].Value).From(by)
		case r < 14:
			return DeclineInput()
		case r == 14:
			return CancelInput()
		case r < 17:
			return FreeformInput(FreeformAnswer{Text: "do something else", Classification: elicitation.ClassifiedUnavailable})
		}
	case StateExecutingTask:
		if pos.Server != nil && pick(5) > 0 {
			if pos.Server.Kind == ServerFetchHead {
				heads := []string{pos.Head, sha("pushed"), ""}
				h := heads[pick(len(heads))]
				return HeadInput(HeadRefresh{OK: h != "", SHA: h, Error: "offline"})
			}
			o := Outcome{Kind: pos.Server.Kind, OK: pick(3) > 0}
			if !o.OK {
				o.Error = "boom"
				o.Refused, o.HeadMoved = pick(3) == 0, pick(4) == 0
				if o.Kind == ServerMerge && pick(3) == 0 { // the pull request changed since the question
					states := []prstatus.PRState{prstatus.StateOpen, prstatus.StateMerged, ""}
					o.Changed = []string{"a new commit"}
					o.Shown = &prstatus.MergeView{Head: sha("moved"), State: states[pick(len(states))]}
				}
			}
			return OutcomeInput(o)
		}
		if pos.Task != nil && pick(5) > 1 {
			in := anyEvent()
			in.Event = pos.Task.Expected[pick(len(pos.Task.Expected))]
			if in.Event == EventUserChose && pos.Freeform != nil {
				in.Choice = pos.Freeform.Question.Choices[pick(len(pos.Freeform.Question.Choices))].Value
				in.By = []AnsweredBy{ByRelay, ""}[pick(2)]
			}
			return in
		}
		if pos.Task != nil && pick(4) == 0 { // a restarted server: the task may never have reached the agent
			in := EventInput(EventReady, "", EventData{})
			in.TaskUnseen = true
			return in
		}
	case StateIdle, StatePolling:
		if pick(4) > 0 {
			return PollInput(situations[pick(len(situations))]().facts())
		}
	}
	return anyEvent()
}

// exploreStep feeds one input and checks every invariant.
func exploreStep(t testing.TB, m *Machine, now time.Time, in Input) {
	before := m.Position()
	beforeJSON := mustJSONtb(t, before)
	act, err := m.Step(now, in)
	if err != nil {
		if !slices.ContainsFunc(knownErrors, func(k error) bool { return errors.Is(err, k) }) {
			t.Fatalf("at %s, input %s/%s/%s: unexpected error (a bug): %v", before.Node, in.Kind, in.Event, in.Choice, err)
		}
		require.Equal(t, beforeJSON, mustJSONtb(t, m.Position()), "an error must leave the position untouched")
		return
	}
	after := m.Position()
	require.NoError(t, after.check())
	consistent(t, after, act)
	if in.Kind == InputStop {
		require.Equal(t, NodeStopped, after.Node, "stop always stops")
	}
	if err := checkMoves(before.Node, after.Node, in, m.Moves()); err != nil {
		t.Fatalf("input %s/%s/%s: %v", in.Kind, in.Event, in.Choice, err)
	}
	representing := before.Server != nil && before.Server.Kind == ServerMerge
	if act.Kind == ActionServer && act.Server.Kind == ServerMerge && !representing {
		ok := in.Kind == InputEvent && in.Event == EventUserChose && before.Node.Flow() == FlowReady && in.By.consents() &&
			slices.Contains([]elicitation.Value{elicitation.Merge, elicitation.MergeAdmin, elicitation.Retry}, in.Choice)
		require.True(t, ok, "a merge came from %s/%s/%s at %s, not the user's merge choice", in.Kind, in.Event, in.Choice, before.Node)
	}
}

func mustJSONtb(t testing.TB, v any) string {
	b, err := jsonMarshal(v)
	require.NoError(t, err)
	return b
}

// consistent is assertConsistent for any testing.TB, given the position after a step.
func consistent(t testing.TB, pos Position, act Action) {
	require.Equal(t, pos.Node, act.Node)
	switch act.Kind {
	case ActionAskUser:
		require.Equal(t, StateAwaitingUser, pos.Node.State())
		require.True(t, act.Question.Offers(elicitation.Stop))
		require.True(t, act.Question.Offers(elicitation.DeclineValue(act.Question.ID)))
	case ActionExecute:
		require.Equal(t, StateExecutingTask, pos.Node.State())
		require.NotEmpty(t, act.ExpectedEvents, "every execute carries expected_events")
	case ActionServer:
		require.NotNil(t, pos.Server)
	case ActionPolling:
		if !act.SnoozedUntil.IsZero() {
			require.Equal(t, StateAwaitingUser, pos.Node.State(), "only a question is snoozed")
			break
		}
		require.Contains(t, []State{StatePolling, StateIdle}, pos.Node.State())
	case ActionStop, ActionMerged:
		require.Equal(t, StateStopped, pos.Node.State())
	default:
		t.Fatalf("unknown action %q", act.Kind)
	}
}

func explore(t testing.TB, src source, steps int) {
	m := New(DefaultConfig(), Monitor{ID: "m", Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}})
	now := t0
	for i := 0; i < steps && !src.done(); i++ {
		now = now.Add(time.Duration(1+src.intn(600)) * time.Second)
		exploreStep(t, m, now, randomInput(src, m))
		if m.pos.Node == NodeStopped && src.intn(3) == 0 { // a stopped monitor is started afresh
			m = New(DefaultConfig(), m.pos.Monitor)
		}
	}
}

// TestRandomWalks runs long random sequences of events, choices, polls and outcomes.
func TestRandomWalks(t *testing.T) {
	walks, steps := 60, 250
	if testing.Short() {
		walks = 10
	}
	if n, err := strconv.Atoi(os.Getenv("PRMONITOR_WALKS")); err == nil && n > 0 {
		walks = n // a deep run: PRMONITOR_WALKS=5000 go test -run TestRandomWalks ./statemachine
	}
	for w := range walks {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			explore(t, randSource{rand.New(rand.NewPCG(uint64(w), 7))}, steps)
		})
	}
}

// FuzzMachine drives the machine with decisions read from the fuzz input.
func FuzzMachine(f *testing.F) {
	for i := range 8 {
		seed := make([]byte, 64)
		for j := range seed {
			seed[j] = byte(i*31 + j*7)
		}
		f.Add(seed)
	}
	f.Add(binary.BigEndian.AppendUint64(nil, 0xdeadbeefcafebabe))
	f.Fuzz(func(t *testing.T, b []byte) {
		explore(t, &byteSource{b: b}, 400)
	})
}

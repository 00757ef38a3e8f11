package statemachine

import (
	"testing"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// BenchmarkStepPollQuiet is the steady state: a poll while CI runs keeps the monitor polling.
func BenchmarkStepPollQuiet(b *testing.B) {
	m := New(DefaultConfig(), Monitor{ID: "m", Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}})
	in := PollInput(newPR().running().facts())
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Minute)
		if _, err := m.Step(now, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepPollToQuestion is a poll that opens a flow: three new threads → the multi question.
func BenchmarkStepPollToQuestion(b *testing.B) {
	m := New(DefaultConfig(), Monitor{ID: "m", Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}})
	if _, err := m.Step(t0, EventInput(EventReady, "", EventData{})); err != nil {
		b.Fatal(err)
	}
	saved := m.Position()
	in := PollInput(threePR().facts())
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m, err := Restore(DefaultConfig(), saved)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		act, err := m.Step(t0, in)
		if err != nil || act.Kind != ActionAskUser {
			b.Fatalf("%v %v", act.Kind, err)
		}
	}
}

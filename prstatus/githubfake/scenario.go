package githubfake

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Step is one moment of a scenario: After is the fake time that passes before it, Events what
// happens then (atomically), Say an optional one-line summary for humans.
type Step struct {
	After  time.Duration
	Say    string
	Events []Event
}

// Describe is the step's one-line story: Say, or its events' descriptions.
func (s Step) Describe() string {
	if s.Say != "" {
		return s.Say
	}
	var parts []string
	for _, e := range s.Events {
		if d := e.Describe(); d != "" {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, "; ")
}

// Scenario is a pull request's story: a timeline of steps on the fake clock.
type Scenario struct {
	Name  string
	PR    Ref
	Steps []Step
}

// ErrScenarioDone is returned by Player.Next when every step has been played.
var ErrScenarioDone = errors.New("githubfake: scenario finished")

// PlayStep advances the clock by step.After and applies the step's events atomically.
func (f *Fake) PlayStep(ref Ref, step Step) error {
	f.mu.Lock()
	defer f.unlock()
	if step.After > 0 {
		f.clock.offset += step.After
	}
	f.settleLocked()
	if err := (&Tx{f: f, ref: ref}).Apply(step.Events...); err != nil {
		return fmt.Errorf("githubfake: step %q: %w", step.Describe(), err)
	}
	return nil
}

// Player plays a scenario on a fake, one step at a time.
type Player struct {
	f    *Fake
	sc   Scenario
	next int
}

// Play returns a player positioned before the scenario's first step.
func (f *Fake) Play(sc Scenario) *Player { return &Player{f: f, sc: sc} }

// Next plays the next step and returns it; ErrScenarioDone when there is none.
func (p *Player) Next() (Step, error) {
	if p.Done() {
		return Step{}, ErrScenarioDone
	}
	s := p.sc.Steps[p.next]
	p.next++
	return s, p.f.PlayStep(p.sc.PR, s)
}

// Peek returns the next step without playing it.
func (p *Player) Peek() (Step, bool) {
	if p.Done() {
		return Step{}, false
	}
	return p.sc.Steps[p.next], true
}

// Done reports whether every step has been played.
func (p *Player) Done() bool { return p.next >= len(p.sc.Steps) }

// Played is how many steps have been played.
func (p *Player) Played() int { return p.next }

// PlayAll plays every remaining step.
func (p *Player) PlayAll() error {
	for !p.Done() {
		if _, err := p.Next(); err != nil {
			return err
		}
	}
	return nil
}

// PlayUntil plays steps up to and including the first whose description contains text.
func (p *Player) PlayUntil(text string) error {
	for !p.Done() {
		s, err := p.Next()
		if err != nil {
			return err
		}
		if strings.Contains(s.Describe(), text) {
			return nil
		}
	}
	return fmt.Errorf("githubfake: no step of %q mentions %q", p.sc.Name, text)
}

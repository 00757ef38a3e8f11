package statemachine

import (
	"fmt"
	"slices"

	"github.com/looplab/fsm"
)

// Mermaid renders the whole table as one Mermaid state diagram.
func Mermaid() (string, error) { return draw(fsmEvents(), NodeIdle) }

// flowDiagram renders the part of the table one flow's reader needs: for FlowNone, watching,
// the catch-up and how each flow is entered; for a flow, its entries and every move among its
// inner steps and out of them. stop, which leaves every node, is drawn only with watching.
func flowDiagram(f Flow) (string, error) {
	var events fsm.Events
	add := func(r Row, keep func(Node) bool) {
		var src []string
		for _, n := range r.From {
			if keep(n) {
				src = append(src, string(n))
			}
		}
		if len(src) > 0 {
			events = append(events, fsm.EventDesc{Name: string(r.Name), Src: src, Dst: string(r.To)})
		}
	}
	inFlow := func(n Node) bool { return n.Flow() == f }
	for _, part := range tableParts() {
		for _, r := range part.rows {
			switch {
			case part.flow == f && f == FlowNone:
				add(r, inFlow)
			case part.flow == f:
				add(r, func(Node) bool { return true })
			case f == FlowNone: // how the other flows are entered
				add(r, func(n Node) bool { return n == NodePolling })
			case part.flow == FlowNone && r.Name != TStop: // shared rows (acknowledge, the PR ending)
				add(r, inFlow)
			}
		}
	}
	start := NodeIdle
	if f != FlowNone {
		start = NodePolling
	}
	return draw(events, start)
}

func draw(events fsm.Events, start Node) (string, error) {
	out, err := fsm.VisualizeWithType(fsm.NewFSM(string(start), slices.Clip(events), nil), fsm.MermaidStateDiagram)
	if err != nil {
		return "", fmt.Errorf("statemachine: draw diagram: %w", err)
	}
	return out, nil
}

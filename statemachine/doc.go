// Package statemachine decides, deterministically, what a monitor does next. It is pure: no I/O, no
// wall clock (time is passed in), no GitHub or MCP types.
//
// Every step of every flow is a node (Node): which question is open, which task or server action
// is in progress, or watching. Every move is a named row of one table (Table, Row, Transition):
// from its nodes to one node, on a trigger (the kind of input, and which events, choices or
// attentions), when its guards hold (Guard: cooldown, an acknowledged key, a refined round, facts
// Derive computed such as answered_by_us...). docs/state-machine.md is generated from the table.
//
// What looplab/fsm does for us: it holds the table (each row is an fsm event, its From nodes the
// event's sources, its To the destination) and refuses a move the table does not list from the
// current node; its before_event callback checks the trigger and guards of the row about to fire
// and cancels the move when they do not hold; its enter_state callback is the only place a step's
// node changes; after_event records the move (Machine.Moves); and it draws the diagrams. What it
// does not do is choose among rows: the flow code names the row it takes, or a short list tried
// in table order (the first whose trigger and guards hold fires), then does the step's work. Tests
// hold the package to this: nothing else writes a position's node, and the random walks and the
// fuzzer check every step's moves against the table.
package statemachine

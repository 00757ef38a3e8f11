package statemachine

import "errors"

// Errors returned by Step. Each leaves the monitor's position untouched.
var (
	// ErrBadInput: the input is malformed.
	ErrBadInput = errors.New("bad input")
	// ErrUnknownEvent: the event is not one of Events.
	ErrUnknownEvent = errors.New("unknown event")
	// ErrNoQuestion: an answer arrived while no question is pending.
	ErrNoQuestion = errors.New("no question is pending")
	// ErrChoiceNotOffered: the answer is not one of the pending question's choices.
	ErrChoiceNotOffered = errors.New("choice not offered")
	// ErrNotTheUsersChoice: a choice that merges came from someone other than the user (see
	// AnsweredBy); nothing happened.
	ErrNotTheUsersChoice = errors.New("only the user's own answer can merge")
	// ErrStaleAnswer: the answer is for a question that is no longer pending.
	ErrStaleAnswer = errors.New("answer to a question that is no longer pending")
	// ErrUnexpectedOutcome: a server-side outcome arrived that nothing asked for.
	ErrUnexpectedOutcome = errors.New("unexpected server-side outcome")
	// ErrCorruptPosition: a restored position is not one the machine can be in.
	ErrCorruptPosition = errors.New("corrupt monitor position")
)

// Package elicitation is the one catalogue of questions and choices the monitor can ask, plus the
// deterministic classification of free-text answers. It does no transport.
package elicitation

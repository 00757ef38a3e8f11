package mcpserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What a channel event says (push.go). Claude Code shows the model the content inside a
// <channel> tag whose attributes are the meta, so both are what the model reads: the server's own
// words, one line. No text from GitHub goes in, not even a name: no login (whoever requested
// changes, whoever approved), no title, branch or check name; the pull request is named by its
// reference (OWNER/REPO#N, as the agent gave it) and its number of threads and failed checks,
// which are counts. What the reviewers wrote reaches the agent in the action the call hands out,
// fenced as GitHub text.

// The values of meta.action.
const (
	pushTask     = "execute"  // a task for the agent
	pushAskUser  = "ask_user" // a question the agent asks the user (the host cannot show it)
	pushQuestion = "question" // a question the host shows the user, inside the agent's next call
)

// channelEventData is one notifications/claude/channel.
type channelEventData struct {
	content   string
	monitorID string
	pr        string
	action    string
	seq       int
}

// params are the notification's: content, a string, and meta, strings by identifier keys (which
// Claude Code turns into the tag's attributes).
func (e channelEventData) params() map[string]any {
	return map[string]any{"content": e.content, "meta": map[string]string{
		"monitor_id": e.monitorID, "pr": e.pr, "action": e.action, "seq": strconv.Itoa(e.seq)}}
}

// channelEvent is the event for m's open action act, from what the monitor's last poll saw (f,
// nil before any). hostShows: the client can show the user a form.
func channelEvent(m *monitor.Monitor, act statemachine.Action, f *prstatus.Facts, hostShows bool, seq int) channelEventData {
	ev := channelEventData{monitorID: m.ID, pr: m.Ref.String(), seq: seq}
	head := ev.pr
	if state := stateWords(f); state != "" {
		head += ": " + state
	}
	call := fmt.Sprintf("Call pr_monitor_next_step with monitor_id %s and event ready", m.ID)
	switch {
	case act.Kind == statemachine.ActionExecute:
		ev.action = pushTask
		ev.content = fmt.Sprintf("%s. A task for you: %s. %s.", head, act.Task.Words(), call)
	case hostShows:
		ev.action = pushQuestion
		ev.content = fmt.Sprintf("%s. A question waits for the user (%s). %s: it shows the question to the user.", head, purpose(act.Question), call)
	default:
		ev.action = pushAskUser
		ev.content = fmt.Sprintf("%s. A question for the user (%s). %s to get it, then ask the user.", head, purpose(act.Question), call)
	}
	return ev
}

// stateWords is what needs attention on the pull request and its counts, in words: "changes
// requested (3 threads need action, 1 check failed)".
func stateWords(f *prstatus.Facts) string {
	if f == nil {
		return ""
	}
	var counts []string
	if n := len(f.Threads.NeedsAction) + len(f.Threads.ReviewerReplied); n > 0 {
		counts = append(counts, text.Count(n, "thread needs", "threads need")+" action")
	}
	if n := len(f.Reviews.ChangesRequestedBy); n > 0 {
		counts = append(counts, text.Count(n, "request", "requests")+" for changes")
	}
	if f.CI.Failed > 0 {
		counts = append(counts, text.Count(f.CI.Failed, "check", "checks")+" failed")
	}
	words := ""
	if k := f.Attention.Kind; k.Known() && k != prstatus.AttentionNone && k != "" {
		words = k.Words()
	}
	if len(counts) == 0 {
		return words
	}
	if words == "" {
		return strings.Join(counts, ", ")
	}
	return words + " (" + strings.Join(counts, ", ") + ")"
}

// purpose is what a question is about, in the catalogue's words.
func purpose(q *elicitation.Question) string {
	if q != nil {
		if spec, ok := elicitation.SpecFor(q.ID); ok && spec.Purpose != "" {
			return spec.Purpose
		}
	}
	return "a choice to make"
}

package board

import (
	"regexp"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The board speaks to people: who acts next, what the monitor is doing and what happened last,
// in words, never in the machine's names (awaiting_user, investigate_ci_failure → execute).

func waitingWords(w monitorwf.WaitingOn) string {
	switch w {
	case monitorwf.WaitingOnUser:
		return "waits on you"
	case monitorwf.WaitingOnAgent:
		return "waits on the agent"
	case monitorwf.WaitingOnGitHub:
		return "watching GitHub"
	case monitorwf.WaitingOnNobody:
		return "ended"
	}
	return identifierWords(string(w))
}

// taskWords says what a task asks of the agent.
var taskWords = map[statemachine.TaskName]string{
	statemachine.TaskRefine:               "rework the pull request after a review",
	statemachine.TaskAddressComment:       "address a review comment",
	statemachine.TaskApplyRecommendation:  "apply a reviewer's suggestion",
	statemachine.TaskExplainComment:       "explain a change a reviewer asked about",
	statemachine.TaskComposeReply:         "write a reply to a reviewer",
	statemachine.TaskInvestigateCIFailure: "find out why the checks failed",
	statemachine.TaskApplyFix:             "fix the failing checks",
	statemachine.TaskRebase:               "bring the branch up to date with its base",
	statemachine.TaskInterpretFreeform:    "work out what your answer asks for",
}

func taskPhrase(t statemachine.TaskName) string {
	if w, ok := taskWords[t]; ok {
		return w
	}
	return identifierWords(string(t))
}

func stateWords(st monitorwf.Status) string {
	switch {
	case st.WaitingOn == monitorwf.WaitingOnNobody || st.State == statemachine.StateStopped:
		return "Stopped: merged, or nobody is watching it any more."
	case st.Task != "" && st.WaitingOn == monitorwf.WaitingOnAgent:
		return "The agent's task: " + taskPhrase(st.Task) + "."
	case st.WaitingOn == monitorwf.WaitingOnUser:
		return "A question waits for your answer."
	case st.Task != "":
		return "Doing GitHub work for the task: " + taskPhrase(st.Task) + "."
	case st.State == statemachine.StateIdle:
		return "Starting."
	}
	return "Watching the pull request for reviews, checks and conflicts."
}

// actionWords is what a step led to.
var actionWords = map[string]string{
	string(statemachine.ActionExecute): "a task for the agent",
	string(statemachine.ActionAskUser): "a question for you",
	string(statemachine.ActionPolling): "watching GitHub",
	string(statemachine.ActionStop):    "stopped",
	string(statemachine.ActionMerged):  "merged",
	string(statemachine.ActionServer):  "GitHub work",
}

// eventWords turns the monitor's log line ("read: ready to merge → ask_user", "agent: ready",
// "GitHub: pull_request_review.submitted") into a sentence; a fenced part stays GitHub's, as is.
func eventWords(what string) []sanitize.Part {
	parts := sanitize.Parts(strings.TrimSpace(what))
	if len(parts) == 0 {
		return nil
	}
	if last := &parts[len(parts)-1]; !last.GitHub {
		if head, action, led := strings.Cut(last.Text, " → "); led {
			a, ok := actionWords[strings.TrimSpace(action)]
			if !ok {
				a = identifierWords(action)
			}
			last.Text = head + "; then " + a + "."
		} else {
			last.Text += "."
		}
	} else {
		parts = append(parts, sanitize.Part{Text: "."})
	}
	if first := &parts[0]; !first.GitHub {
		first.Text = sentenceStart(eventHead(first.Text))
	}
	for i := range parts {
		if !parts[i].GitHub {
			parts[i].Text = identifierWords(parts[i].Text)
		}
	}
	return parts
}

// eventHead says who did what at the start of a log line.
func eventHead(head string) string {
	for _, r := range []struct{ prefix, words string }{
		{"read: ", "Read the pull request: "},
		{"agent: ready", "The agent asked for its next step"},
		{"agent: user_chose ", "Answered: "},
		{"agent: form ", "The question was "},
		{"agent: ", "The agent reported: "},
		{"read failed", "Could not read the pull request"},
	} {
		if rest, ok := strings.CutPrefix(head, r.prefix); ok {
			return r.words + rest
		}
	}
	return head
}

func sentenceStart(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// machineName is a name of the machine's or of GitHub's events: investigate_ci_failure,
// pull_request_review.submitted.
var machineName = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\b`)

// identifierWords are a machine's names made readable; other text is unchanged.
func identifierWords(s string) string {
	return machineName.ReplaceAllStringFunc(s, func(m string) string {
		return strings.NewReplacer("_", " ", ".", " ").Replace(m)
	})
}

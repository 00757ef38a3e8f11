package board

import (
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// Card is one monitor as a person reads it: plain words, GitHub's text marked as GitHub's and
// never with the agent's fence lines, and the open question with its choices. The page (page.go)
// and its JSON (/api/monitors, /events) are both made from cards.
type Card struct {
	ID  string `json:"id"`
	PR  string `json:"pr"`
	URL string `json:"url,omitempty"` // https only; anything else is no link
	// Title is the pull request's title: GitHub's text, every part of it.
	Title []sanitize.Part `json:"title,omitempty"`
	// WaitingOn is who acts next (monitorwf.WaitingOn) and Waiting says it in words.
	WaitingOn string          `json:"waiting_on"`
	Waiting   string          `json:"waiting"`
	State     string          `json:"state"`
	Attention string          `json:"attention,omitempty"`
	Question  *CardQuestion   `json:"question,omitempty"`
	Event     []sanitize.Part `json:"event,omitempty"`
	EventAt   time.Time       `json:"event_at,omitzero"`
	Error     []sanitize.Part `json:"error,omitempty"`
}

// CardQuestion is a question open for the user, answerable on the board.
type CardQuestion struct {
	Seq     int             `json:"seq"`
	Text    []sanitize.Part `json:"text"`
	Choices []CardChoice    `json:"choices"`
}

// CardChoice is one answer: Value is what the board sends back.
type CardChoice struct {
	Value elicitation.Value `json:"value"`
	Label string            `json:"label"`
}

func cardOf(st monitorwf.Status) Card {
	c := Card{ID: st.MonitorID, PR: st.PR, WaitingOn: string(st.WaitingOn), Waiting: waitingWords(st.WaitingOn),
		State: stateWords(st), Attention: plain(st.Attention), Error: sanitize.Parts(st.LastError)}
	if strings.HasPrefix(st.URL, "https://") {
		c.URL = st.URL
	}
	if st.Title != "" {
		c.Title = []sanitize.Part{{Text: string(st.Title), GitHub: true}}
	}
	if q := st.Question; q != nil && st.WaitingOn == monitorwf.WaitingOnUser {
		cq := &CardQuestion{Seq: q.Seq, Text: sanitize.Parts(q.Text)}
		for _, ch := range q.Choices {
			cq.Choices = append(cq.Choices, CardChoice{Value: ch.Value, Label: plain(ch.Label)})
		}
		c.Question = cq
	}
	if st.LastEvent.What != "" {
		c.Event, c.EventAt = eventWords(st.LastEvent.What), st.LastEvent.At
	}
	return c
}

// plain is text with any fenced part in quotation marks (a label, a line of attention).
func plain(s string) string {
	var b strings.Builder
	for _, p := range sanitize.Parts(s) {
		if p.GitHub {
			b.WriteString("“" + p.Text + "”")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

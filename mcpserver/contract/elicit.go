package contract

import (
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Form field names of an elicited question.
const (
	fieldChoice      = "choice"
	fieldInstruction = "instruction"
)

// titledEnumSince is the first protocol version whose elicitation forms have titled single-select
// enums (oneOf of const + title) and the mode field. 2025-06-18, the first version with
// elicitation, spells titles as enumNames beside enum, and knows no mode.
const titledEnumSince = "2025-11-25"

// QuestionForm renders a question as an MCP form for the negotiated protocol version: a titled
// single-select (values stay machine values; people see labels), plus an optional free-text
// field for anything else.
func QuestionForm(q elicitation.Question, summary, version string) mcp.ElicitationParams {
	msg := q.Text
	if summary != "" {
		msg = summary + "\n\n" + q.Text
	}
	choice := map[string]any{"type": "string", "title": "Choose"}
	mode := "form"
	if version != "" && version < titledEnumSince { // versions are dates: they sort as strings
		values, names := make([]string, len(q.Choices)), make([]string, len(q.Choices))
		for i, c := range q.Choices {
			values[i], names[i] = string(c.Value), c.Label
		}
		choice["enum"], choice["enumNames"] = values, names
		mode = ""
	} else {
		oneOf := make([]map[string]any, len(q.Choices))
		for i, c := range q.Choices {
			oneOf[i] = map[string]any{"const": string(c.Value), "title": c.Label}
		}
		choice["oneOf"] = oneOf
	}
	return mcp.ElicitationParams{
		Meta:    &mcp.Meta{AdditionalFields: map[string]any{"prmonitor/question": string(q.ID), "prmonitor/seq": q.Seq}},
		Mode:    mode,
		Message: msg,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				fieldChoice:      choice,
				fieldInstruction: map[string]any{"type": "string", "title": "Or say what to do instead"},
			},
		},
	}
}

// FormAnswer is what came back from an elicitation.
type FormAnswer struct {
	Kind   statemachine.InputKind // event (a choice), decline, cancel or freeform
	Choice elicitation.Value
	Text   string
}

// ReadForm turns an elicitation result into an FormAnswer. A value that is not one of the
// question's choices, or text in the instruction field, is free text; an accepted but empty form
// counts as dismissed.
func ReadForm(res *mcp.ElicitationResult, q elicitation.Question) FormAnswer {
	if res == nil {
		return FormAnswer{Kind: statemachine.InputCancel}
	}
	switch res.Action {
	case mcp.ElicitationResponseActionDecline:
		return FormAnswer{Kind: statemachine.InputDecline}
	case mcp.ElicitationResponseActionCancel:
		return FormAnswer{Kind: statemachine.InputCancel}
	}
	content, _ := res.Content.(map[string]any)
	text, _ := content[fieldInstruction].(string)
	choice, _ := content[fieldChoice].(string)
	if t := strings.TrimSpace(text); t != "" {
		return FormAnswer{Kind: statemachine.InputFreeform, Text: t}
	}
	switch c := strings.TrimSpace(choice); {
	case c == "":
		return FormAnswer{Kind: statemachine.InputCancel}
	case q.Offers(elicitation.Value(c)):
		return FormAnswer{Kind: statemachine.InputEvent, Choice: elicitation.Value(c)}
	default:
		return FormAnswer{Kind: statemachine.InputFreeform, Text: c}
	}
}

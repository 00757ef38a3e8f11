package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// TestEveryInputErrorIsOneSentenceNamingTheField: whatever is wrong with a call's arguments, the
// agent reads one sentence per problem that names the field, what it sent and what is allowed,
// never the validator's Go structs.
func TestEveryInputErrorIsOneSentenceNamingTheField(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: withDispatch})
	events := "ready, user_chose, comment_addressed, comment_replied, investigation_complete, push_completed, task_complete"
	for _, tt := range []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"a value not in the list", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "bogus_event"},
			`event "bogus_event" is not one of: ` + events},
		{"a required field missing", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1"}, `missing required field "event"`},
		{"two required fields missing", contract.ToolNextStep, map[string]any{}, `missing required fields "monitor_id", "event"`},
		{"an unknown field", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "ready", "extra": 1},
			`unknown field "extra"; the fields are: choice, data, event, monitor_id, question_seq`},
		{"an unknown field inside data", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "ready", "data": map[string]any{"replytext": "x"}},
			`unknown field "data.replytext"; data's fields are: findings, issue_type, recommendation, reply_text, suggested_fix`},
		{"data sent as a string", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "ready", "data": `{"reply_text":"x"}`},
			`data is "{\"reply_text\":\"x\"}", not null or an object`},
		{"a number as text", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "user_chose", "choice": "rebase", "question_seq": "3"},
			`question_seq is "3", not an integer`},
		{"a fraction for an integer", contract.ToolNextStep, map[string]any{"monitor_id": "a/b#1", "event": "user_chose", "choice": "rebase", "question_seq": 1.5},
			`question_seq is 1.5, not an integer`},
		{"a word for a yes or no", contract.ToolStartAll, map[string]any{"include_drafts": "yes"}, `include_drafts is "yes", not true or false`},
		{"a number for a reference", contract.ToolStart, map[string]any{"pr": 7}, `pr is 7, not a string`},
		{"two problems at once", contract.ToolStop, map[string]any{"monitor": "x"},
			`missing required field "monitor_id"; unknown field "monitor"; the fields are: monitor_id`},
		{"the dispatcher's repository", contract.ToolDispatch, map[string]any{"repo": []any{"acme/widgets"}}, `repo is a list, not a string`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errText := h.call(tt.tool, tt.args)
			assert.Equal(t, tt.want, errText)
			assert.NotContains(t, errText, "&{")
			assert.NotContains(t, errText, "<root>")
		})
	}
}

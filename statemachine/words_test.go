package statemachine

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// internalCode matches a snake_case identifier: how the machine names kinds, nodes, events and
// choices. Text a person reads says it in words.
var internalCode = regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)

func TestEveryQuestionIsAskedInWords(t *testing.T) {
	for _, r := range reachers() {
		t.Run(string(r.id)+"/"+r.name, func(t *testing.T) {
			q := r.reach(t).m.pos.Question
			assert.NotRegexp(t, internalCode, q.Text)
			for _, c := range q.Choices {
				assert.NotRegexp(t, internalCode, c.Label)
			}
		})
	}
}

// TestEveryMessageAndQuestionTextIsInWords: from every saved position (one per step of every flow),
// every input worth trying (two steps deep unless -short), every question and message a person may
// read is free of internal codes.
func TestEveryMessageAndQuestionTextIsInWords(t *testing.T) {
	files, err := filepath.Glob("testdata/positions-v1/*.json")
	require.NoError(t, err)
	type visit struct {
		pos   Position
		now   time.Time
		depth int
	}
	var queue []visit
	for _, f := range files {
		c := readV1Case(t, f)
		queue = append(queue, visit{c.Position, c.Now, 0})
	}
	checked := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, in := range inputsAt(v.pos) {
			m := mustRestore(t, v.pos)
			act, err := m.Step(v.now.Add(time.Minute), in)
			if err != nil {
				continue
			}
			checked++
			assert.NotRegexp(t, internalCode, act.Message, "message at %s after %s", v.pos.Node, in.Kind)
			if act.Question != nil {
				assert.NotRegexp(t, internalCode, act.Question.Text, "question at %s", m.Position().Node)
			}
			if v.depth < 1 && !testing.Short() {
				queue = append(queue, visit{m.Position(), v.now.Add(time.Minute), v.depth + 1})
			}
		}
	}
	assert.Greater(t, checked, 50)
}

package elicitation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogueIsConsistent(t *testing.T) {
	seen := map[QuestionID]bool{}
	for _, s := range Catalogue() {
		assert.False(t, seen[s.ID], "duplicate question %s", s.ID)
		seen[s.ID] = true
		assert.NotEmpty(t, s.Purpose, s.ID)
		values := map[Value]bool{}
		for _, c := range s.Choices {
			assert.False(t, values[c.Value], "%s offers %s twice", s.ID, c.Value)
			values[c.Value] = true
			assert.NotEmpty(t, c.Label)
			assert.NotEqual(t, string(c.Value), c.Label, "labels are for people, values for machines")
		}
		assert.True(t, values[s.Decline], "%s: decline value %s must be one of its choices", s.ID, s.Decline)
		assert.True(t, values[Stop], "%s: stop must always be offered", s.ID)
	}
}

func TestAskRejectsChoicesOutsideTheCatalogue(t *testing.T) {
	_, err := Ask(QMergeConflict, "?", []Value{Merge})
	require.Error(t, err, "a conflict question can never offer merge")
	_, err = Ask(QReadyToMerge, "?", []Value{Merge}, Choice{Pick(1), "x"})
	require.Error(t, err, "only pick questions carry picks")
	_, err = Ask("nope", "?", nil)
	require.Error(t, err)
	q, err := Ask(QReadyToMerge, "Merge?", []Value{Stop, Merge})
	require.NoError(t, err)
	assert.Equal(t, []Value{Merge, Stop}, q.Values(), "catalogue order, not caller order")
}

func TestPickValues(t *testing.T) {
	n, ok := PickIndex(Pick(12))
	require.True(t, ok)
	assert.Equal(t, 12, n)
	for _, v := range []Value{"pick:0", "pick:x", "pick:", "merge", "pick:-1"} {
		_, ok := PickIndex(v)
		assert.False(t, ok, v)
	}
}

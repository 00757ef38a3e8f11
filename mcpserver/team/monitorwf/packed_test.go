package monitorwf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestAPackedSnapshotUnpacksToTheSameSnapshotAndALargeOneFitsTemporalsPayloadLimit(t *testing.T) {
	s := changesRequested()
	for i := range 600 { // a busy pull request: 600 threads of review prose
		s.Threads = append(s.Threads, prstatus.Thread{ID: fmt.Sprintf("T%d", i), Path: "internal/retry/backoff.go", Line: i,
			Comments: []prstatus.Comment{{ID: fmt.Sprintf("C%d", i), Author: prstatus.Actor{Login: "bob"},
				Body: strings.Repeat("The retry loop should stop after the budget is spent. ", 40)}}, TotalComments: 1})
	}
	p, err := pack(&s)
	require.NoError(t, err)
	got, err := p.unpack()
	require.NoError(t, err)
	assert.Equal(t, s.Threads[599].Comments[0].Body, got.Threads[599].Comments[0].Body)
	assert.Equal(t, s.HeadOID, got.HeadOID)
	assert.Less(t, len(p), 512<<10, "well under Temporal's 2 MB payload limit (and its 512 KB warning)")
}

func TestGarbageIsNoSnapshot(t *testing.T) {
	_, err := Packed("not gzip").unpack()
	assert.ErrorContains(t, err, "unpack the snapshot")
}

package mcpserver

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestTheSummaryOfEveryAttentionIsInWords(t *testing.T) {
	code := regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)
	for _, k := range prstatus.AttentionOrder {
		f := &prstatus.Facts{
			CI:        prstatus.CIFacts{Total: 4, Passed: 2, Failed: 1, Pending: 1},
			Attention: prstatus.Attention{Kind: k},
			Reviews:   prstatus.ReviewFacts{ChangesRequestedBy: []string{"bob"}, Approvals: []string{"carol"}, FromOthers: []prstatus.ReviewerVerdict{{Reviewer: "x"}}},
			Threads:   prstatus.ThreadFacts{NeedsAction: []prstatus.ThreadFact{{ID: "T1"}}, Waiting: []prstatus.ThreadFact{{ID: "T2"}}},
		}
		s := summarize("o/r#20", f)
		assert.NotRegexp(t, code, s, k)
		assert.Contains(t, s, k.Words())
	}
	assert.Equal(t, "o/r#20 · 2 checks passed, 1 failed, 1 running · merge conflict",
		summarize("o/r#20", &prstatus.Facts{CI: prstatus.CIFacts{Total: 4, Passed: 2, Failed: 1, Pending: 1},
			Attention: prstatus.Attention{Kind: prstatus.AttentionMergeConflict}}))
}

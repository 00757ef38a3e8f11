package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarkerRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   Marker
		want Marker
	}{
		{name: "plain", in: Marker{Round: "r2", Thread: "PRRT_kw1", Kind: ReplyAddressed, Category: "validation"}, want: Marker{Round: "r2", Thread: "PRRT_kw1", Kind: ReplyAddressed, Category: "validation"}},
		{name: "no category", in: Marker{Round: "2026-11-20T10:00:00Z", Thread: "T1", Kind: ReplyReplied}, want: Marker{Round: "2026-11-20T10:00:00Z", Thread: "T1", Kind: ReplyReplied}},
		{name: "hostile values are cleaned", in: Marker{Round: "r1 --> <b>", Thread: "T1\n", Kind: ReplyReplied}, want: Marker{Round: "r1--b", Thread: "T1", Kind: ReplyReplied}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "Fixed in acme/w@abc.\n\n" + tt.in.String()
			got, ok := ParseMarker(body)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMarkerAbsentOrForged(t *testing.T) {
	for _, body := range []string{"", "no marker", "<!-- prmonitor:v1 round=1 -->", "<!-- other:v1 thread=x -->"} {
		_, ok := ParseMarker(body)
		assert.False(t, ok, body)
	}
	m, ok := ParseMarker("<!-- prmonitor:v1 thread=A kind=replied --> then <!-- prmonitor:v1 thread=B kind=addressed -->")
	require.True(t, ok)
	assert.Equal(t, "B", m.Thread, "the last marker counts")
}

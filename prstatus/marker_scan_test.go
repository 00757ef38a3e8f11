package prstatus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var markerScanSeeds = []string{
	"",
	"Fixed.\n\n<!-- prmonitor:v1 round=r1 thread=T1 kind=addressed category=validation -->",
	"<!-- prmonitor:v1 thread=A --> then <!-- prmonitor:v1 thread=B kind=replied -->",
	"<!-- prmonitor:v1 thread=A <!-- prmonitor:v1 round=r -->",
	"<!-- prmonitor:v1 thread=A > x --> <!-- prmonitor:v1 thread=B -->",
	"<!-- prmonitor:v1 thread=B --> <!-- prmonitor:v1 thread=C>",
	"<!-- prmonitor:v1  -->",
	"<!-- prmonitor:v1 -->",
	"<!-- prmonitor:v1 thread=x-->",
	"<!-- prmonitor:v1 thread==x round kind= -->",
	"<!-- prmonitor:v1 <!-- prmonitor:v1 thread=a --> -->",
	"<!-- prmonitor:v1 thread=\xff\xfe -->",
}

func TestScanMarkerMatchesParseMarker(t *testing.T) {
	for _, body := range markerScanSeeds {
		wantM, wantOK := ParseMarker(body)
		gotM, gotOK := scanMarker(body)
		require.Equal(t, wantOK, gotOK, "%q", body)
		require.Equal(t, wantM, gotM, "%q", body)
	}
}

func FuzzScanMarker(f *testing.F) {
	for _, s := range markerScanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		wantM, wantOK := ParseMarker(body)
		gotM, gotOK := scanMarker(body)
		require.Equal(t, wantOK, gotOK)
		require.Equal(t, wantM, gotM)
	})
}

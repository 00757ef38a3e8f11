package prstatus

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceMarkerRe is the marker's grammar as a regular expression: the oracle ParseMarker's
// string scanner is held to.
var referenceMarkerRe = regexp.MustCompile(`<!-- prmonitor:v1 ([^>]*?) -->`)

func referenceParseMarker(body string) (Marker, bool) {
	all := referenceMarkerRe.FindAllStringSubmatch(body, -1)
	if len(all) == 0 {
		return Marker{}, false
	}
	var m Marker
	for _, f := range strings.Fields(all[len(all)-1][1]) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch k {
		case "round":
			m.Round = v
		case "thread":
			m.Thread = v
		case "kind":
			m.Kind = ReplyKind(v)
		case "category":
			m.Category = v
		}
	}
	if m.Thread == "" {
		return Marker{}, false
	}
	return m, true
}

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

func TestParseMarkerMatchesTheGrammar(t *testing.T) {
	for _, body := range markerScanSeeds {
		wantM, wantOK := referenceParseMarker(body)
		gotM, gotOK := ParseMarker(body)
		require.Equal(t, wantOK, gotOK, "%q", body)
		require.Equal(t, wantM, gotM, "%q", body)
	}
}

func FuzzParseMarker(f *testing.F) {
	for _, s := range markerScanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		wantM, wantOK := referenceParseMarker(body)
		gotM, gotOK := ParseMarker(body)
		require.Equal(t, wantOK, gotOK)
		require.Equal(t, wantM, gotM)
	})
}

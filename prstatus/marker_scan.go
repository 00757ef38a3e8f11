package prstatus

import "strings"

// markerSuffix closes prmonitor's marker.
const markerSuffix = " -->"

// lastMarkerText returns the text inside the last well-formed marker of body.
func lastMarkerText(body string) (string, bool) {
	group, found := "", false
	for pos := 0; pos < len(body); {
		i := strings.Index(body[pos:], markerPrefix)
		if i < 0 {
			break
		}
		start := pos + i + len(markerPrefix)
		// The marker's text holds no '>': it ends at the first one, which must close " -->".
		q := strings.IndexByte(body[start:], '>')
		if q < 0 {
			break
		}
		end := start + q + 1
		if end-len(markerSuffix) >= start && body[end-len(markerSuffix):end] == markerSuffix {
			group, found = body[start:end-len(markerSuffix)], true
			pos = end
			continue
		}
		pos += i + 1
	}
	return group, found
}

package prstatus

import "strings"

// markerSuffix closes prmonitor's marker.
const markerSuffix = " -->"

// scanMarker is ParseMarker without the regular expression: the same last marker, the same
// fields (a test holds the two equal on any input). Cluster reads the marker of every answered
// thread to find the recent rounds, and the expression costs microseconds per comment where this
// costs nanoseconds.
func scanMarker(body string) (Marker, bool) {
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
	if !found {
		return Marker{}, false
	}
	var m Marker
	for f := range strings.FieldsSeq(group) {
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

// ourScannedMarker is OurMarker through scanMarker.
func ourScannedMarker(c Comment, author, viewer string) (Marker, bool) {
	if !ours(c, author, viewer) || !strings.Contains(c.Body, markerPrefix) {
		return Marker{}, false
	}
	return scanMarker(c.Body)
}

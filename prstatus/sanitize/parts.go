package sanitize

import "strings"

// Part is a run of text as a person sees it: GitHub's (it was inside a fence) or not.
type Part struct {
	Text   string `json:"text"`
	GitHub bool   `json:"github,omitempty"`
}

// Parts splits fenced text into what a person is shown: the text between fences as it is, each
// fence's text marked as GitHub's, and no fence line. A fence read as Outside reads it; an opening
// without its end line makes the rest GitHub's (never the other way round). Empty runs are left
// out.
func Parts(text string) []Part {
	var out []Part
	add := func(s string, gh bool) {
		if s != "" {
			out = append(out, Part{Text: s, GitHub: gh})
		}
	}
	for {
		loc := fenceOpen().FindStringSubmatchIndex(text)
		if loc == nil {
			add(text, false)
			return out
		}
		add(text[:loc[0]], false)
		id := text[loc[2]:loc[3]]
		body, rest, found := strings.Cut(text[loc[1]:], fenceEnd+id+fenceClose)
		add(body, true)
		if !found {
			return out
		}
		text = rest
	}
}

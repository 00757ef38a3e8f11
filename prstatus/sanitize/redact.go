package sanitize

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted is what a secret is replaced with.
const Redacted = "[REDACTED]"

// minEncoded is the shortest encoded form worth looking for: shorter ones would match ordinary
// text by chance.
const minEncoded = 8

// Redactor removes one secret from text: the secret itself (so also the basic-auth userinfo
// form x-access-token:SECRET), its URL-encoded forms (every byte percent-encoded included), its
// hex forms, and its base64 forms in both alphabets at every alignment, so the secret is found
// inside a longer encoded string such as the Authorization header base64("x-access-token:SECRET")
// that git prints with GIT_TRACE. Each form is found also when white space splits it: a log that
// wraps base64 at 76 columns, a token broken over lines, or spaced with no-break or other Unicode
// spaces. A job log that echoes the server's own token, in any of these forms, loses it at
// ingestion.
//
// The zero Redactor, and one made from an empty secret, changes nothing.
type Redactor struct {
	needles []string
}

// NewRedactor prepares the forms of secret to look for. A secret shorter than 4 bytes is not
// looked for: it would match ordinary text.
func NewRedactor(secret string) Redactor {
	if len(secret) < 4 {
		return Redactor{}
	}
	hexed := hex.EncodeToString([]byte(secret))
	needles := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), hexed, strings.ToUpper(hexed),
		percentEncoded(hexed, false), percentEncoded(hexed, true)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for align := range 3 {
			needles = append(needles, alignedBase64(enc, secret, align))
		}
	}
	var out []string
	for _, n := range needles {
		if (n == secret || len(n) >= minEncoded) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	// Longest first: a form that contains another is replaced whole.
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return Redactor{needles: out}
}

// alignedBase64 is the part of the base64 encoding of secret, preceded by align other bytes,
// that depends on the secret's bytes alone: the same characters appear wherever the secret sits
// at that alignment inside a longer encoded string.
func alignedBase64(enc *base64.Encoding, secret string, align int) string {
	b := make([]byte, align, align+len(secret))
	s := enc.EncodeToString(append(b, secret...))
	// Character i holds bits [6i, 6i+6); the secret holds bits [8·align, 8·(align+len)).
	first := (8*align + 5) / 6
	last := 8 * (align + len(secret)) / 6
	return s[first:last]
}

// percentEncoded is every byte of a secret percent-encoded, from its hex form.
func percentEncoded(hexed string, upper bool) string {
	if upper {
		hexed = strings.ToUpper(hexed)
	}
	var b strings.Builder
	for i := 0; i+1 < len(hexed); i += 2 {
		b.WriteString("%" + hexed[i:i+2])
	}
	return b.String()
}

// Redact returns s with every form of the secret replaced by [REDACTED], also where white space
// splits one, and also where only the folded text (Normalize) holds one: a token written in
// fullwidth or styled letters (ｇｈｐ_…, 𝐠𝐡𝐩_…) is the token once folded, as every reader of a
// fence is shown it. Such a text is returned folded, with the secret replaced.
func (r Redactor) Redact(s string) string {
	s = r.redact(s)
	if len(r.needles) == 0 || isASCII(s) {
		return s
	}
	if folded := Normalize(s); folded != s && r.holds(folded) {
		return r.redact(folded)
	}
	return s
}

// holds reports whether s holds a form of the secret, also split by white space.
func (r Redactor) holds(s string) bool {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return len(r.needles) > 0 && strings.ContainsFunc(s, unicode.IsSpace) && len(r.find(squeeze(s))) > 0
}

// squeeze is s without its white space.
func squeeze(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsSpace(c) {
			return -1
		}
		return c
	}, s)
}

// redact replaces the forms of the secret s holds as it is.
func (r Redactor) redact(s string) string {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			s = strings.ReplaceAll(s, n, Redacted)
		}
	}
	if len(r.needles) == 0 || !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return r.redactSpaced(s)
}

// redactSpaced finds the secret's forms in s read without its white space, and replaces each
// span of s that held one (the white space inside it included) by one [REDACTED].
func (r Redactor) redactSpaced(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	spans := r.find(squeeze(s))
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	pos, k := 0, 0 // pos: where the next non-space rune of s sits in squeezed
	redacting := false
	pending := "" // white space seen while redacting: dropped if the span goes on
	for _, c := range s {
		if unicode.IsSpace(c) {
			if redacting {
				pending += string(c)
			} else {
				b.WriteRune(c)
			}
			continue
		}
		for k < len(spans) && spans[k][1] <= pos {
			k++
		}
		inside := k < len(spans) && spans[k][0] <= pos
		switch {
		case inside && !redacting:
			b.WriteString(Redacted)
		case !inside:
			b.WriteString(pending)
			b.WriteRune(c)
		}
		redacting, pending = inside, ""
		pos += utf8.RuneLen(c)
	}
	b.WriteString(pending)
	return b.String()
}

// find returns where the secret's forms are in text, as sorted, disjoint byte ranges.
func (r Redactor) find(text string) [][2]int {
	var spans [][2]int
	for _, n := range r.needles {
		for from := 0; ; {
			j := strings.Index(text[from:], n)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{from + j, from + j + len(n)})
			from += j + len(n)
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, sp := range spans {
		if len(out) > 0 && sp[0] <= out[len(out)-1][1] {
			out[len(out)-1][1] = max(out[len(out)-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Clean is the whole ingestion step for one piece of GitHub text: Text, then Redact (after Text,
// so a secret broken up by invisible characters is found whole). The text is then looked at as a
// reader will be shown it (ForReader: hidden comments removed, folded, defanged): when that view
// holds the secret (a token split by an HTML comment, written in styled letters), the view itself,
// redacted, is what is kept, so neither a payload nor a state file can ever carry it.
func (r Redactor) Clean(s string) string {
	s = r.Redact(Text(s))
	if len(r.needles) == 0 {
		return s
	}
	if view := ForReader(s); view != s && r.holds(view) {
		return r.Redact(view)
	}
	return s
}

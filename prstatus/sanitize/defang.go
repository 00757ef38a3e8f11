package sanitize

import (
	"html"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	// bracketed is anything between three or more angle brackets on one line, "<<<…>>>": the
	// shape of a fence marker whatever its letters (a Cyrillic "е" survives normalisation).
	// Merge-conflict lines ("<<<<<<< HEAD") have no closing run and are left alone.
	bracketed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<{3,}([^<>\n]{0,200}?)>{3,}`) })
	// markerWords are a marker's words, however spaced, with whatever brackets, slash or guillemet
	// before them: "end untrusted GitHub text".
	markerWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:«|<+\s*)?(?:/\s*)?((?:end\s+)?untrusted\s+github\s+text)`)
	})
	// charRef is an HTML character reference, which GitHub shows as its character: "&lt;",
	// "&#60;", "&#x3C;".
	charRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)
	})
)

// maxCharRef is the longest character reference charRef matches ("&" and ";" around 32 letters).
const maxCharRef = 34

// Defang makes anything shaped like a fence marker visibly different, so that a forged end line
// cannot even look like one to a reader who does not compare ids: a bracketed "<<<…>>>" becomes
// "«…»" and the marker's words are preceded by "«" instead of brackets. It expects normalised
// text (Normalize).
//
// A marker is recognised as a reader would take it, in the text's skeleton: HTML character
// references as GitHub shows them ("&lt;&lt;&lt;"), lookalike angle brackets (modifier-letter
// arrowheads "˂˃", single guillemets, mathematical and CJK angle brackets) as "<" and ">", and
// combining marks (a "<" with a stroke over it, an accent on a letter of "untrusted") left out.
// A marker found there is replaced, whole, by its defanged skeleton.
func Defang(s string) string {
	if isASCII(s) && !strings.Contains(s, "&") {
		return defangPlain(s)
	}
	s = defangWith(s, markerWords(), "«$1")
	return defangWith(s, bracketed(), "«$1»")
}

// defangPlain is Defang for text whose skeleton is itself.
func defangPlain(s string) string {
	if strings.Contains(strings.ToLower(s), "untrusted") {
		s = markerWords().ReplaceAllString(s, "«$1")
	}
	if strings.Contains(s, "<<<") {
		s = bracketed().ReplaceAllString(s, "«$1»")
	}
	return s
}

// defangWith replaces what re finds in s's skeleton by template, expanded over the skeleton.
func defangWith(s string, re *regexp.Regexp, template string) string {
	sk, at := skeleton(s)
	matches := re.FindAllStringSubmatchIndex(sk, -1)
	if matches == nil {
		return s
	}
	from := func(i int) int { // where skeleton byte i came from in s
		if i == len(sk) {
			return len(s)
		}
		return at[i]
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:from(m[0])])
		b.Write(re.ExpandString(nil, template, sk, m))
		last = from(m[1])
	}
	b.WriteString(s[last:])
	return b.String()
}

// skeleton is s as a marker is compared, and for each of its bytes the offset in s of the
// character (or character reference) it came from.
func skeleton(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && c != '&' {
			b.WriteByte(c)
			at = append(at, i)
			i++
			continue
		}
		unit, size := s[i:i+1], 1
		if s[i] == '&' {
			if loc := charRef().FindStringIndex(s[i:min(len(s), i+maxCharRef)]); loc != nil {
				unit, size = html.UnescapeString(s[i:i+loc[1]]), loc[1]
			}
		} else if s[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(s[i:])
			unit = s[i : i+size]
		}
		for _, r := range norm.NFD.String(norm.NFKC.String(unit)) {
			r = skeletonRune(r)
			if r < 0 {
				continue
			}
			n := b.Len()
			b.WriteRune(r)
			for range b.Len() - n {
				at = append(at, i)
			}
		}
		i += size
	}
	return b.String(), at
}

// skeletonRune is r as a marker is compared: -1 for what a reader does not see as a character of
// its own (a combining mark, an invisible character), "<" or ">" for a lookalike angle bracket, a
// space for any space.
func skeletonRune(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		return r
	case unicode.In(r, unicode.Mn, unicode.Me) || IsInvisible(r):
		return -1
	case unicode.IsSpace(r):
		return ' '
	case strings.ContainsRune("˂‹〈〈⟨❮❬ᐸ《⟪", r):
		return '<'
	case strings.ContainsRune("˃›〉〉⟩❯❭ᐳ》⟫", r):
		return '>'
	}
	return r
}

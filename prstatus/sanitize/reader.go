package sanitize

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ForReader is GitHub text as it is shown to a reader, inside a fence: HTML comments removed
// (GitHub does not show them, so nobody reviewing the pull request saw what they say), cleaned as
// Text cleans, normalised (Normalize), and with anything shaped like a fence marker defanged
// (Defang).
//
// Cleaning or normalising can bring the pieces of a comment together ("<!\u200b--" once the
// zero-width space is gone, "\uff1c!--" once folded), and removing a comment can leave text to
// normalise, so the steps repeat until nothing changes (twice for ordinary text).
func ForReader(s string) string {
	for range maxRounds {
		next := Defang(Normalize(StripHTMLComments(Text(s))))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// maxRounds bounds ForReader's rounds; each round only removes or folds text, so a handful
// reaches the fixed point.
const maxRounds = 8

// htmlComment is an HTML comment as GitHub's Markdown hides it: from "<!--" to the first "-->",
// or to the end of the text when none follows (an unclosed comment hides everything after it).
var htmlComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?(?:-->|\z)`) })

// StripHTMLComments removes HTML comments, which GitHub renders as nothing: a review that reads
// "LGTM" on GitHub can carry a paragraph of instructions in one. Comments inside code blocks,
// which GitHub does show, are removed too: a reader loses a little visible text rather than ever
// being shown hidden text.
func StripHTMLComments(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	return htmlComment().ReplaceAllString(s, "")
}

// Normalize folds text to the form a reader takes it in, so that what looks alike is alike before
// anything is compared with it: compatibility normalisation (NFKC: fullwidth and small forms,
// ligatures, enclosed and styled letters become their plain letters), every Unicode space a space
// and every Unicode line break a newline. It keeps newlines and tabs, and is idempotent.
func Normalize(s string) string {
	if isASCII(s) {
		return s
	}
	s = norm.NFKC.String(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r < utf8.RuneSelf:
			return r
		case isLineBreak(r):
			return '\n'
		case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			return ' '
		}
		return r
	}, s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

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
)

// Defang makes anything shaped like a fence marker visibly different, so that a forged end line
// cannot even look like one to a reader who does not compare ids: a bracketed "<<<…>>>" becomes
// "«…»" and the marker's words are preceded by "«" instead of brackets. It expects normalised
// text (Normalize).
func Defang(s string) string {
	if strings.Contains(strings.ToLower(s), "untrusted") {
		s = markerWords().ReplaceAllString(s, "«$1")
	}
	if strings.Contains(s, "<<<") {
		s = bracketed().ReplaceAllString(s, "«$1»")
	}
	return s
}

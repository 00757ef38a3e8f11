package sanitize

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ForReader is GitHub text as it is shown to a reader, inside a fence: HTML comments and
// link-reference definitions removed (GitHub shows neither, so nobody reviewing the pull request
// saw what they say), cleaned as Text cleans, normalised (Normalize), and with anything shaped
// like a fence marker defanged (Defang).
//
// Cleaning or normalising can bring the pieces of a comment together ("<!\u200b--" once the
// zero-width space is gone, "\uff1c!--" once folded), and removing a comment can leave text to
// normalise, so the steps repeat until nothing changes (twice for ordinary text).
func ForReader(s string) string {
	for range maxRounds {
		next := Defang(Normalize(StripLinkDefinitions(StripHTMLComments(Text(s)))))
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

// linkDefinition is a Markdown link-reference definition on its own lines, as CommonMark reads
// one: up to three spaces, a [label], a colon, a destination (<…> or a run without spaces, on the
// same line or the next), and an optional title in "…", '…' or (…) that may run over lines but not
// over a blank one. The common "comment" `[//]: # (hidden words)` is one. GitHub renders a
// definition as nothing.
var linkDefinition = sync.OnceValue(func() *regexp.Regexp {
	const (
		label = `\[(?:[^\]\\\n]|\\.){1,999}\]:`
		dest  = `[ \t]*(?:\n[ \t]*)?(?:<[^<>\n]*>|[^\s<>]\S*)`
		// A title's characters: a line break only before more title, never a blank line.
		double = `"(?:[^"\n]|\n[ \t]*[^"\s])*"`
		single = `'(?:[^'\n]|\n[ \t]*[^'\s])*'`
		parens = `\((?:[^()\n]|\n[ \t]*[^()\s])*\)`
		title  = `(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:` + double + `|` + single + `|` + parens + `))?`
	)
	return regexp.MustCompile(`(?m)^ {0,3}` + label + dest + title + `[ \t]*(?:\n|\z)`)
})

// StripLinkDefinitions removes Markdown link-reference definitions, which GitHub renders as
// nothing: `[//]: # (ignore previous instructions)` is a comment nobody on GitHub sees. A
// reference-style link elsewhere in the text keeps its words and loses its target, which the
// reader can follow on GitHub.
func StripLinkDefinitions(s string) string {
	if !strings.Contains(s, "]:") {
		return s
	}
	return linkDefinition().ReplaceAllString(s, "")
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

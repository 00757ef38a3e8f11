package rounds

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The keyword floor matches phrases word by word rather than with regular expressions: one pass
// over a comment's words, with an index from first words to phrases, costs microseconds where a
// few hundred alternations cost a third of a millisecond.
//
// A phrase is words separated by spaces. A word is alternatives separated by "|"; an alternative
// ending in "*" matches any word it begins; "_" matches any word; a word ending in "?" may be
// absent. The first word is never optional. Words are runs of letters, digits, "_" and "'", and
// dots between letters ("errors.is"), so word boundaries come for free.

// categoryRule is one weighted set of phrases (and literal snippets such as "%w") of a category.
type categoryRule struct {
	category Category
	weight   int
	phrases  []string
	literals []string // matched as substrings of the lower-cased text
}

func words(c Category, weight int, phrases ...string) categoryRule {
	return categoryRule{category: c, weight: weight, phrases: phrases}
}

func literals(c Category, weight int, snippets ...string) categoryRule {
	return categoryRule{category: c, weight: weight, literals: snippets}
}

type phraseWord struct {
	alts     []string // a trailing "*" makes an alternative a prefix
	optional bool
}

func (w *phraseWord) matches(tok string) bool {
	for _, a := range w.alts {
		if a == "_" || a == tok || (strings.HasSuffix(a, "*") && strings.HasPrefix(tok, a[:len(a)-1])) {
			return true
		}
	}
	return false
}

type phrase struct {
	words []phraseWord
	rule  int // index into categoryRules
}

// matchAt reports whether the phrase's words from k on match the tokens from i on.
func (p *phrase) matchAt(tokens []string, i, k int) bool {
	if k == len(p.words) {
		return true
	}
	w := &p.words[k]
	if i < len(tokens) && w.matches(tokens[i]) && p.matchAt(tokens, i+1, k+1) {
		return true
	}
	return w.optional && p.matchAt(tokens, i, k+1)
}

// phraseIndex finds the phrases that may start at a word: by the word itself, or by one of its
// prefixes.
type phraseIndex struct {
	phrases    []phrase
	exact      map[string][]int
	prefix     map[string][]int
	prefixLens []int
}

func buildPhraseIndex(rules []categoryRule) *phraseIndex {
	ix := &phraseIndex{exact: map[string][]int{}, prefix: map[string][]int{}}
	lens := map[int]bool{}
	for r, rule := range rules {
		for _, src := range rule.phrases {
			p := phrase{rule: r}
			for _, w := range strings.Fields(src) {
				pw := phraseWord{optional: strings.HasSuffix(w, "?")}
				pw.alts = strings.Split(strings.TrimSuffix(w, "?"), "|")
				p.words = append(p.words, pw)
			}
			if len(p.words) == 0 || p.words[0].optional || len(p.words[0].alts) == 0 {
				panic("rounds: bad category phrase " + src) // a programming error, caught by every test run
			}
			id := len(ix.phrases)
			ix.phrases = append(ix.phrases, p)
			for _, a := range p.words[0].alts {
				switch {
				case a == "_" || a == "*" || a == "":
					panic("rounds: category phrase starts with a wildcard: " + src)
				case strings.HasSuffix(a, "*"):
					pre := a[:len(a)-1]
					ix.prefix[pre] = append(ix.prefix[pre], id)
					lens[len(pre)] = true
				default:
					ix.exact[a] = append(ix.exact[a], id)
				}
			}
		}
	}
	for n := range lens {
		ix.prefixLens = append(ix.prefixLens, n)
	}
	slices.Sort(ix.prefixLens)
	return ix
}

// hits calls hit with every phrase that matches somewhere in tokens (possibly more than once).
func (ix *phraseIndex) hits(tokens []string, hit func(id int)) {
	for i, tok := range tokens {
		for _, id := range ix.exact[tok] {
			if ix.phrases[id].matchAt(tokens, i, 0) {
				hit(id)
			}
		}
		for _, n := range ix.prefixLens {
			if n > len(tok) {
				break
			}
			for _, id := range ix.prefix[tok[:n]] {
				if ix.phrases[id].matchAt(tokens, i, 0) {
					hit(id)
				}
			}
		}
	}
}

// tokenize splits lower-cased text into words (see the package comment above).
func tokenize(text string) []string {
	tokens := make([]string, 0, len(text)/5+1)
	start := -1
	for i, r := range text {
		inWord := r == '_' || r == '\'' || r == '’' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if r == '.' && start >= 0 && i+1 < len(text) {
			next, _ := utf8.DecodeRuneInString(text[i+1:])
			inWord = unicode.IsLetter(next)
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			tokens = appendToken(tokens, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		tokens = appendToken(tokens, text[start:])
	}
	return tokens
}

func appendToken(tokens []string, t string) []string {
	t = strings.Trim(t, "'’.")
	if t == "" {
		return tokens
	}
	return append(tokens, t)
}

// stripSpans removes every span from open to the next close (or to the end), replacing each with
// sep.
func stripSpans(s, open, close, sep string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteString(sep)
		rest := s[i+len(open):]
		j := strings.Index(rest, close)
		if j < 0 {
			return b.String()
		}
		s = rest[j+len(close):]
		i = strings.Index(s, open)
	}
	b.WriteString(s)
	return b.String()
}

// stripURLs removes http(s) links up to the next white space.
func stripURLs(s string) string {
	i := indexURL(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteByte(' ')
		j := strings.IndexFunc(s[i:], unicode.IsSpace)
		if j < 0 {
			return b.String()
		}
		s = s[i+j:]
		i = indexURL(s)
	}
	b.WriteString(s)
	return b.String()
}

// indexURL is the index of the first "http://" or "https://" in s, or -1.
func indexURL(s string) int {
	off := 0
	for {
		i := strings.Index(s[off:], "http")
		if i < 0 {
			return -1
		}
		if rest := s[off+i:]; strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "http://") {
			return off + i
		}
		off += i + len("http")
	}
}

package sanitize

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// Redacted is what a secret is replaced with.
const Redacted = "[REDACTED]"

// minEncoded is the shortest encoded form worth looking for: shorter ones would match ordinary
// text by chance.
const minEncoded = 8

// Redactor removes one secret from text: the secret itself (so also the basic-auth userinfo
// form x-access-token:SECRET), its URL-encoded forms, and its base64 forms in both alphabets at
// every alignment, so the secret is found inside a longer encoded string such as the
// Authorization header base64("x-access-token:SECRET") that git prints with GIT_TRACE. A job log
// that echoes the server's own token, in any of these forms, loses it at ingestion.
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
	needles := []string{secret, url.QueryEscape(secret), url.PathEscape(secret)}
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

// Redact returns s with every form of the secret replaced by [REDACTED].
func (r Redactor) Redact(s string) string {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			s = strings.ReplaceAll(s, n, Redacted)
		}
	}
	return s
}

// Clean is the whole ingestion step for one piece of GitHub text: Text, then Redact (after Text,
// so a secret broken up by invisible characters is found whole).
func (r Redactor) Clean(s string) string { return r.Redact(Text(s)) }

package sanitize

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

const secret = "ghp_R3dactMe0123456789abcdefghijklmnopq"

func TestRedactorRemovesTheSecretInEveryObviousForm(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	u64 := base64.URLEncoding.EncodeToString
	tests := []struct {
		name string
		in   string
	}{
		{"plain, as an env dump prints it", "GITHUB_TOKEN=" + secret + "\n"},
		{"basic-auth userinfo", "https://x-access-token:" + secret + "@github.com/acme/widgets.git"},
		{"base64 of the token", "token " + b64([]byte(secret))},
		{"base64 of x-access-token:TOKEN, as git's Authorization header", "Authorization: basic " + b64([]byte("x-access-token:"+secret))},
		{"base64 of user:TOKEN at the other alignments", b64([]byte("u:"+secret)) + " " + b64([]byte("ab:"+secret+"!"))},
		{"base64 URL alphabet", u64([]byte("?>" + secret))},
		{"URL-encoded", "q=" + url.QueryEscape(secret+"/+")},
		{"split by invisible characters (Clean)", secret[:10] + "\u200b" + secret[10:]},
		{"split by an ANSI colour (Clean)", secret[:10] + "\x1b[0m" + secret[10:]},
	}
	r := NewRedactor(secret)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Clean(tt.in)
			assert.NotContains(t, got, secret)
			assert.NotContains(t, got, b64([]byte(secret))[:20])
			assert.Contains(t, got, Redacted)
		})
	}
}

func TestRedactorLeavesOtherTextAlone(t *testing.T) {
	r := NewRedactor(secret)
	for _, s := range []string{"", "plain text", "GITHUB_TOKEN=***", strings.Repeat("QUJD", 100), "ghp_other0123456789"} {
		assert.Equal(t, s, r.Redact(s))
	}
	assert.Equal(t, "abc", Redactor{}.Redact("abc"), "the zero Redactor changes nothing")
	assert.Equal(t, "a abc b", NewRedactor("abc").Redact("a abc b"), "a secret too short to look for")
	assert.Equal(t, "x "+Redacted+" y", NewRedactor("abcd").Redact("x abcd y"), "a short secret's encodings are not looked for, itself is")
}

func TestAlignedBase64IsFoundInsideLongerEncodings(t *testing.T) {
	for prefix := range 7 {
		for suffix := range 4 {
			raw := strings.Repeat("p", prefix) + secret + strings.Repeat("s", suffix)
			enc := base64.StdEncoding.EncodeToString([]byte(raw))
			assert.Contains(t, enc, alignedBase64(base64.StdEncoding, secret, prefix%3), "prefix %d suffix %d", prefix, suffix)
		}
	}
}

func BenchmarkRedactorClean(b *testing.B) {
	r := NewRedactor(secret)
	log := strings.Repeat("=== RUN TestRetry\n--- FAIL: TestRetry (1.00s)\n", 400)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Clean(log)
	}
}

func TestRedactorFindsTheSecretSplitSpacedOrEncoded(t *testing.T) {
	wrapped := func(s string, width int) string {
		var lines []string
		for len(s) > width {
			lines = append(lines, s[:width])
			s = s[width:]
		}
		return strings.Join(append(lines, s), "\n")
	}
	hexed := hex.EncodeToString([]byte(secret))
	var pct strings.Builder
	for _, c := range []byte(secret) {
		fmt.Fprintf(&pct, "%%%02X", c)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + secret + strings.Repeat("!", 40)))
	tests := []struct{ name, in string }{
		{"split across lines", "token: " + secret[:12] + "\n" + secret[12:] + "\nnext"},
		{"split across CRLF-ish lines with indentation", "  " + secret[:5] + "\n    " + secret[5:20] + "\n    " + secret[20:]},
		{"spaced with no-break spaces", strings.Join(strings.Split(secret, ""), "\u00a0")},
		{"spaced with ideographic and thin spaces", secret[:8] + "\u3000" + secret[8:16] + "\u2009" + secret[16:]},
		{"base64 wrapped at 76 columns", "Authorization: basic\n" + wrapped(b64, 76)},
		{"base64 wrapped at 20 columns", wrapped(b64, 20)},
		{"hex", "dump " + hexed},
		{"hex, upper case, wrapped", wrapped(strings.ToUpper(hexed), 16)},
		{"every byte percent-encoded", "?t=" + pct.String()},
		{"every byte percent-encoded, lower case", "?t=" + strings.ToLower(pct.String())},
	}
	r := NewRedactor(secret)
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Clean(tt.in)
			assert.Contains(t, got, Redacted)
			for _, form := range []string{secret, hexed, strings.ToUpper(hexed), alignedBase64(base64.StdEncoding, secret, 0),
				alignedBase64(base64.StdEncoding, secret, 1), alignedBase64(base64.StdEncoding, secret, 2)} {
				assert.NotContains(t, squeeze(got), form[:20], "%q", got)
			}
		})
	}
	assert.Equal(t, "a b\nc", r.Redact("a b\nc"), "white space alone changes nothing")
	assert.Equal(t, "keep "+Redacted+" and "+Redacted+" end", r.Redact("keep "+secret[:9]+" "+secret[9:]+" and "+secret+" end"))
}

// FuzzRedactSpaced: the secret, split anywhere by any white space, inside any text, never
// survives, not even read without white space.
func FuzzRedactSpaced(f *testing.F) {
	f.Add("log: ", 10, "\n  ", " end")
	f.Add("", 0, "\u00a0", "")
	f.Add("ghp_", 39, "\u2028", secret)
	r := NewRedactor(secret)
	f.Fuzz(func(t *testing.T, before string, at int, space, after string) {
		space = strings.Map(func(c rune) rune {
			if unicode.IsSpace(c) {
				return c
			}
			return -1
		}, space)
		at = ((at % len(secret)) + len(secret)) % len(secret)
		out := r.Redact(before + secret[:at] + space + secret[at:] + after)
		if squeezed := strings.Join(strings.FieldsFunc(out, unicode.IsSpace), ""); strings.Contains(squeezed, secret) {
			t.Fatalf("the secret survives: %q", out)
		}
	})
}

// BenchmarkClean is the ingestion step on a 64 KB job log with no token in it (the usual case)
// and with the token wrapped across its lines.
func BenchmarkClean(b *testing.B) {
	r := NewRedactor(secret)
	log := strings.Repeat("2026-03-02T12:00:00Z ok   github.com/acme/widgets/pkg  0.123s\n", 1000)
	wrapped := log + secret[:20] + "\n" + secret[20:] + "\n"
	for name, text := range map[string]string{"no token": log, "a wrapped token": wrapped} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_ = r.Clean(text)
			}
		})
	}
}

// fullwidth writes s's printable ASCII in fullwidth forms (ｇｈｐ＿…).
func fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r <= '~' {
			return r + 0xfee0
		}
		return r
	}, s)
}

// mathBold writes s's letters and digits in mathematical bold (𝐠𝐡𝐩_…).
func mathBold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 0x1d41a + r - 'a'
		case r >= 'A' && r <= 'Z':
			return 0x1d400 + r - 'A'
		case r >= '0' && r <= '9':
			return 0x1d7ce + r - '0'
		}
		return r
	}, s)
}

// A token written so that only the folded text (NFKC, as every fence shows it) holds it is found
// there: the text kept is the folded one, redacted, and no reader's view of it holds the token.
func TestRedactorFindsTheSecretOnceFolded(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"fullwidth", "token: " + fullwidth(secret) + " end"},
		{"mathematical bold", "token: " + mathBold(secret) + " end"},
		{"half fullwidth, half plain", "token: " + fullwidth(secret[:12]) + secret[12:]},
		{"fullwidth, split by an ideographic space", fullwidth(secret[:12]) + "\u3000" + fullwidth(secret[12:])},
		{"split by an HTML comment a reader is not shown (Clean)", "x " + secret[:12] + "<!-- hidden -->" + secret[12:] + " y"},
		{"split by a link-reference comment line (Clean)", secret[:12] + "\n[//]: # (hidden)\n" + secret[12:]},
	}
	r := NewRedactor(secret)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Clean(tt.in)
			assert.Contains(t, got, Redacted)
			for _, view := range []string{got, Normalize(got), ForReader(got), squeeze(ForReader(got))} {
				assert.NotContains(t, view, secret)
				assert.NotContains(t, view, secret[:20])
			}
			if !strings.Contains(tt.name, "(Clean)") {
				assert.Equal(t, got, r.Redact(tt.in), "Redact alone finds it too")
			}
		})
	}
	assert.Equal(t, "ｆｕｌｌｗｉｄｔｈ text", r.Clean("ｆｕｌｌｗｉｄｔｈ text"), "other folded text is kept as written")
}

package sanitize

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

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

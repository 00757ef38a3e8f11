package sanitize

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextAtTheEdges holds the bounds of every range and length check in Text: the first and
// last byte of each escape-sequence class, a sequence exactly as long as maxEscape allows and one
// byte longer, a carriage return as the very last byte, and a literal U+FFFD after a change.
func TestTextAtTheEdges(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"CR as the last byte", "a\r", "a\n"},
		{"CR alone", "\r", "\n"},
		{"literal U+FFFD after a change is one character", "\x07a\uFFFDb", "a\uFFFDb"},
		{"invalid byte after a change", "\x07a\xffb", "a\uFFFDb"},

		// CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E.
		{"CSI final @ (0x40)", "\x1b[1@x", "x"},
		{"CSI final ~ (0x7E)", "\x1b[2~x", "x"},
		{"CSI intermediate space (0x20)", "\x1b[2 qx", "x"},
		{"CSI intermediate / (0x2F)", "\x1b[2/qx", "x"},
		{"CSI parameter ? and < (0x3F, 0x3C)", "\x1b[?25;<1hx", "x"},
		{"CSI ended by DEL (0x7F) is unterminated", "\x1b[2\x7fx", "[2x"},

		// Other ESC sequences: intermediates 0x20–0x2F, final 0x30–0x7E.
		{"ESC final 0 (0x30)", "\x1b0x", "x"},
		{"ESC final ~ (0x7E)", "\x1b~x", "x"},
		{"ESC intermediate space then final", "\x1b Fx", "x"},
		{"ESC intermediate / then final", "\x1b/Ax", "x"},
		{"ESC then a control is unterminated", "\x1b\x01x", "x"},

		// maxEscape bounds what follows the introducer.
		{"ESC sequence of exactly maxEscape bytes after ESC", "\x1b" + strings.Repeat(" ", maxEscape-1) + "0x", "x"},
		{"ESC sequence one byte too long loses only ESC", "\x1b" + strings.Repeat(" ", maxEscape) + "0x", strings.Repeat(" ", maxEscape) + "0x"},
		{"CSI of exactly maxEscape bytes after ESC [", "\x1b[" + strings.Repeat("1", maxEscape-1) + "mx", "x"},
		{"CSI one byte too long loses only ESC", "\x1b[" + strings.Repeat("1", maxEscape) + "mx", "[" + strings.Repeat("1", maxEscape) + "mx"},
		{"C1 CSI of exactly maxEscape bytes", "\u009b" + strings.Repeat("1", maxEscape-1) + "mx", "x"},
	}
	// Every string sequence: ESC ], ESC P, ESC X, ESC ^, ESC _ and C1 OSC, ended by BEL, ESC \ or
	// C1 ST starting at the last byte maxEscape allows after the introducer, and one byte later.
	// Past the bound, only the introducer goes (ESC, or the C1 OSC); the terminator, a control
	// itself, goes on its own.
	for _, intro := range []string{"\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_", "\u009d"} {
		kept := strings.TrimPrefix(intro, "\x1b")
		if intro == "\u009d" {
			kept = ""
		}
		for _, end := range []string{"\x07", "\x1b\\", "\u009c"} {
			tests = append(tests,
				struct{ name, in, want string }{"string sequence " + quoteName(intro+end) + " within the bound", intro + pad(maxEscape-1) + end + "x", "x"},
				struct{ name, in, want string }{"string sequence " + quoteName(intro+end) + " past the bound", intro + pad(maxEscape) + end + "x", kept + pad(maxEscape) + "x"},
			)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, Text(got), "idempotent")
		})
	}
}

func quoteName(s string) string {
	return strings.Trim(strings.ReplaceAll(strings.ReplaceAll(s, "\x1b", "ESC"), "\x07", "BEL"), " ")
}

func TestRedactorLooksForAnEncodingOfExactlyTheShortestLength(t *testing.T) {
	r := NewRedactor("abc de") // its path escape, abc%20de, is exactly minEncoded bytes
	assert.Len(t, "abc%20de", minEncoded)
	assert.Equal(t, "x "+Redacted+" y", r.Redact("x abc%20de y"))
}

// TestRedactorReplacesAFormThatContainsAnotherWhole: iterated base64 converges to a string that
// begins with its own encoding, so a prefix of it is a secret whose base64 contains the secret.
// The longer form must be replaced first, else its tail would stay in the text.
func TestRedactorReplacesAFormThatContainsAnotherWhole(t *testing.T) {
	fix := "x"
	for range 24 {
		fix = base64.StdEncoding.EncodeToString([]byte(fix))
	}
	secret := fix[:12]
	encoded := base64.StdEncoding.EncodeToString([]byte(secret))
	assert.True(t, strings.HasPrefix(encoded, secret), "%s encodes to %s", secret, encoded)
	assert.Equal(t, "x "+Redacted+" y", NewRedactor(secret).Redact("x "+encoded+" y"))
}

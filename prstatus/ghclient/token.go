package ghclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// redacted is what a Token prints as, however it is printed.
const redacted = sanitize.Redacted

// Token is a GitHub token that cannot leak by accident: every way of printing, marshalling or
// logging it yields "[REDACTED]". Only the transport reads the secret, to build the Authorization
// header. The zero Token is empty.
type Token struct {
	// secret is behind a pointer so that even reflection-based printing of a struct that holds a
	// Token in an unexported field shows an address, not the token.
	secret *string
}

// NewToken wraps a token string. Surrounding whitespace is trimmed.
func NewToken(s string) Token {
	s = strings.TrimSpace(s)
	if s == "" {
		return Token{}
	}
	return Token{secret: &s}
}

// IsZero reports whether the token is empty.
func (t Token) IsZero() bool { return t.secret == nil || *t.secret == "" }

// String implements fmt.Stringer.
func (t Token) String() string { return redacted }

// GoString implements fmt.GoStringer (%#v).
func (t Token) GoString() string { return "ghclient.Token(" + redacted + ")" }

// Format implements fmt.Formatter so that every verb (%s, %v, %q, %x, %d, ...) redacts.
func (t Token) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(t.GoString()))
		return
	}
	_, _ = f.Write([]byte(redacted))
}

// MarshalJSON implements json.Marshaler.
func (t Token) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler.
func (t Token) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue implements slog.LogValuer.
func (t Token) LogValue() slog.Value { return slog.StringValue(redacted) }

// reveal returns the secret. Only the Authorization header may use it.
func (t Token) reveal() string {
	if t.secret == nil {
		return ""
	}
	return *t.secret
}

// redactor finds the token, and its obvious encodings, in text from GitHub.
func (t Token) redactor() sanitize.Redactor { return sanitize.NewRedactor(t.reveal()) }

// scrub replaces every occurrence of the token in s, in any of its obvious encodings, also where
// only the text as a reader is shown it holds one (sanitize.Redactor.Clean): GitHub's messages are
// quoted to readers, fenced.
func (t Token) scrub(s string) string { return t.redactor().Clean(s) }

// validToken reports whether s can go into an Authorization header: printable ASCII, no spaces.
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// CommandRunner runs an external command and returns its standard output. Tests inject a fake;
// ExecCommand runs the real thing.
type CommandRunner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecCommand runs name with args and returns its standard output. Standard error is discarded
// from the returned error, which carries only the exit status.
func ExecCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s exited with status %d", name, ee.ExitCode())
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s is not installed", name)
		}
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	return stdout.Bytes(), nil
}

// ResolveToken finds the GitHub token: GITHUB_TOKEN, then GH_TOKEN, then `gh auth token
// --hostname HOST`. host is the web host of the GitHub instance prmonitor talks to, as
// Endpoints.Host returns it ("" means github.com): gh is always asked for that host's token, never
// for whichever host it happens to default to (GH_HOST, an enterprise login). run may be nil,
// which skips the gh fallback.
//
// When nothing is found the error wraps ErrNoToken and says where it looked.
func ResolveToken(ctx context.Context, getenv func(string) string, host string, run CommandRunner) (Token, error) {
	for _, name := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			if !validToken(v) {
				return Token{}, fmt.Errorf("%w: %s holds characters a token cannot contain", ErrNoToken, name)
			}
			return NewToken(v), nil
		}
	}
	if run == nil {
		return Token{}, fmt.Errorf("%w (GITHUB_TOKEN and GH_TOKEN are empty)", ErrNoToken)
	}
	if host == "" {
		host = "github.com"
	}
	args := []string{"auth", "token", "--hostname", host}
	out, err := run(ctx, "gh", args...)
	if err != nil {
		if ctx.Err() != nil {
			return Token{}, fmt.Errorf("ask gh for a token: %w", ctx.Err())
		}
		// The runner's error is ours (ExecCommand) or a test's; fold it to one line, and never
		// include gh's output, which could hold a token.
		return Token{}, fmt.Errorf("%w (GITHUB_TOKEN and GH_TOKEN are empty; `gh %s` failed: %s)",
			ErrNoToken, strings.Join(args, " "), oneLine(err.Error()))
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	line = strings.TrimSpace(line)
	if !validToken(line) {
		return Token{}, fmt.Errorf("%w (GITHUB_TOKEN and GH_TOKEN are empty; `gh %s` printed no usable token)",
			ErrNoToken, strings.Join(args, " "))
	}
	return NewToken(line), nil
}

// ShortID names the token where several must be told apart (a worker's metrics) without showing
// it: "sha256:" and the first 8 hex digits of its SHA-256. Thirty-two bits of a one-way hash say
// nothing usable about a token GitHub generated; "" for the empty token.
func (t Token) ShortID() string {
	if t.IsZero() {
		return ""
	}
	sum := sha256.Sum256([]byte(*t.secret))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeGH is a CommandRunner standing in for the gh CLI.
type fakeGH struct {
	out   string
	err   error
	calls [][]string
}

func (f *fakeGH) run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, append([]string{name}, args...))
	return []byte(f.out), f.err
}

func TestResolveToken(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		host      string
		gh        *fakeGH
		want      string
		wantCall  []string
		wantErr   string
		wantNoRun bool
	}{
		{name: "GITHUB_TOKEN first", env: map[string]string{"GITHUB_TOKEN": "a1", "GH_TOKEN": "b2"}, gh: &fakeGH{out: "c3"}, want: "a1", wantNoRun: true},
		{name: "GH_TOKEN second", env: map[string]string{"GH_TOKEN": " b2\n"}, gh: &fakeGH{out: "c3"}, want: "b2", wantNoRun: true},
		{name: "blank GITHUB_TOKEN skipped", env: map[string]string{"GITHUB_TOKEN": "  ", "GH_TOKEN": "b2"}, gh: &fakeGH{}, want: "b2", wantNoRun: true},
		{name: "gh for github.com", host: "github.com", gh: &fakeGH{out: "gho_c3\n"}, want: "gho_c3", wantCall: []string{"gh", "auth", "token", "--hostname", "github.com"}},
		{name: "gh with no host: github.com", gh: &fakeGH{out: "gho_c3\n"}, want: "gho_c3", wantCall: []string{"gh", "auth", "token", "--hostname", "github.com"}},
		{name: "gh for GHES", host: "ghe.example.com", gh: &fakeGH{out: "gho_c3"}, want: "gho_c3", wantCall: []string{"gh", "auth", "token", "--hostname", "ghe.example.com"}},
		{name: "gh fails", gh: &fakeGH{err: errors.New("gh exited with status 1")}, wantErr: "`gh auth token --hostname github.com` failed: gh exited with status 1"},
		{name: "gh prints nothing", gh: &fakeGH{out: "\n"}, wantErr: "printed no usable token"},
		{name: "gh prints junk", gh: &fakeGH{out: "not a token"}, wantErr: "printed no usable token"},
		{name: "no gh runner", wantErr: "GITHUB_TOKEN and GH_TOKEN are empty"},
		{name: "token with a control character", env: map[string]string{"GITHUB_TOKEN": "a\x01b"}, wantErr: "GITHUB_TOKEN holds characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var run CommandRunner
			if tt.gh != nil {
				run = tt.gh.run
			}
			tok, err := ResolveToken(t.Context(), env(tt.env), tt.host, run)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrNoToken)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), "gh auth login", "the message says how to fix it")
				assert.NotContains(t, err.Error(), "\n")
				assert.True(t, tok.IsZero())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tok.reveal())
			if tt.wantNoRun {
				assert.Empty(t, tt.gh.calls)
			}
			if tt.wantCall != nil {
				assert.Equal(t, [][]string{tt.wantCall}, tt.gh.calls)
			}
		})
	}
}

func TestResolveTokenHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	run := func(ctx context.Context, _ string, _ ...string) ([]byte, error) { return nil, ctx.Err() }
	_, err := ResolveToken(ctx, env(nil), "", run)
	require.ErrorIs(t, err, context.Canceled)
}

func TestTokenNeverPrints(t *testing.T) {
	tok := NewToken(testToken)
	type holder struct {
		Token  Token
		hidden Token
	}
	h := holder{Token: tok, hidden: tok}

	var outputs []string
	for _, format := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10s", "%T"} {
		outputs = append(outputs, fmt.Sprintf(format, tok), fmt.Sprintf(format, h), fmt.Sprintf(format, &h))
	}
	outputs = append(outputs, tok.String(), tok.GoString(), fmt.Sprint(tok), fmt.Sprintln(tok, h))

	js, err := json.Marshal(h)
	require.NoError(t, err)
	outputs = append(outputs, string(js))
	txt, err := tok.MarshalText()
	require.NoError(t, err)
	outputs = append(outputs, string(txt))

	var logs bytes.Buffer
	for _, handler := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		l := slog.New(handler)
		l.Info("token", "token", tok, "holder", h)
		l.Info("token", slog.Any("token", tok))
	}
	outputs = append(outputs, logs.String())

	for _, out := range outputs {
		assert.NotContains(t, out, testToken)
		assert.NotContains(t, out, testToken[4:12])
	}
	assert.Equal(t, redacted, fmt.Sprint(tok))
	assert.Equal(t, `"[REDACTED]"`, string(js[len(`{"Token":`):len(js)-1]))
	assert.Contains(t, logs.String(), redacted)
	assert.Equal(t, testToken, tok.reveal())
}

func TestNewToken(t *testing.T) {
	assert.True(t, NewToken("").IsZero())
	assert.True(t, NewToken("  \n").IsZero())
	assert.True(t, Token{}.IsZero())
	assert.Equal(t, "x", NewToken(" x\n").reveal())
	assert.Equal(t, redacted, Token{}.String())
}

func TestShortIDTellsTokensApartWithoutShowingThem(t *testing.T) {
	a, b := NewToken("ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), NewToken("ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	assert.Regexp(t, `^sha256:[0-9a-f]{8}$`, a.ShortID())
	assert.Equal(t, a.ShortID(), NewToken(" ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n").ShortID(), "the same token, the same id")
	assert.NotEqual(t, a.ShortID(), b.ShortID())
	assert.NotContains(t, a.ShortID(), "aaaa")
	assert.Empty(t, Token{}.ShortID())
}

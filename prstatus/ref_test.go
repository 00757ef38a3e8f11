package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePRRef(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    PRRef
		wantErr bool
	}{
		{name: "short form", in: "acme/widgets#42", want: PRRef{"acme", "widgets", 42}},
		{name: "short form with dots", in: "acme/my.repo_x-1#7", want: PRRef{"acme", "my.repo_x-1", 7}},
		{name: "url", in: "https://github.com/acme/widgets/pull/42", want: PRRef{"acme", "widgets", 42}},
		{name: "url with files tab", in: "https://github.com/acme/widgets/pull/42/files#diff", want: PRRef{"acme", "widgets", 42}},
		{name: "enterprise url", in: "https://ghe.example.com/acme/widgets/pull/3?x=1", want: PRRef{"acme", "widgets", 3}},
		{name: "surrounding space", in: "  acme/widgets#1 ", want: PRRef{"acme", "widgets", 1}},
		{name: "empty", in: "", wantErr: true},
		{name: "no number", in: "acme/widgets", wantErr: true},
		{name: "zero", in: "acme/widgets#0", wantErr: true},
		{name: "negative", in: "acme/widgets#-1", wantErr: true},
		{name: "issue url", in: "https://github.com/acme/widgets/issues/4", wantErr: true},
		{name: "ftp", in: "ftp://github.com/acme/widgets/pull/4", wantErr: true},
		{name: "bad owner", in: "-acme/widgets#4", wantErr: true},
		{name: "dotdot repo", in: "https://github.com/acme/../pull/4", wantErr: true},
		{name: "huge number", in: "acme/widgets#99999999999", wantErr: true},
		{name: "garbage", in: "not a pr", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePRRef(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrBadRef)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want.Owner+"/"+tt.want.Repo+"#", got.String()[:len(tt.want.Owner)+len(tt.want.Repo)+2])
		})
	}
}

func TestCheckHostRefusesAReferenceOnAnotherHost(t *testing.T) {
	const pr = "https://github.com/acme/widgets/pull/7"
	tests := []struct {
		name      string
		ref       string
		prURL     string
		wantHosts []string // both named in the error; none means accepted
	}{
		{name: "short form", ref: "acme/widgets#7", prURL: pr},
		{name: "same host", ref: "https://github.com/acme/widgets/pull/7/files", prURL: pr},
		{name: "case, default port, www and a trailing dot are the same host", ref: "https://WWW.GitHub.com.:443/acme/widgets/pull/7", prURL: pr},
		{name: "enterprise server serving its own URLs", ref: "https://ghe.corp/acme/widgets/pull/7", prURL: "https://ghe.corp/acme/widgets/pull/7"},
		{name: "another host", ref: "https://evil.example/acme/widgets/pull/7", prURL: pr, wantHosts: []string{"evil.example", "github.com"}},
		{name: "a user name that looks like the host", ref: "https://github.com@evil.example/acme/widgets/pull/7", prURL: pr, wantHosts: []string{"evil.example", "github.com"}},
		{name: "credentials before the right host", ref: "https://me:hunter2@github.com/acme/widgets/pull/7", prURL: pr, wantHosts: []string{"github.com"}},
		{name: "an enterprise URL while serving github.com", ref: "https://ghe.corp/acme/widgets/pull/7", prURL: pr, wantHosts: []string{"ghe.corp", "github.com"}},
		{name: "github.com while serving an enterprise server", ref: pr, prURL: "https://ghe.corp/acme/widgets/pull/7", wantHosts: []string{"github.com", "ghe.corp"}},
		{name: "another port", ref: "https://github.com:8443/acme/widgets/pull/7", prURL: pr, wantHosts: []string{"github.com:8443", "github.com"}},
		{name: "GitHub named no URL", ref: pr, prURL: "", wantHosts: []string{"github.com", "a host it did not name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHost(tt.ref, tt.prURL)
			if len(tt.wantHosts) == 0 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrOtherHost)
			require.ErrorIs(t, err, ErrBadRef)
			for _, h := range tt.wantHosts {
				assert.Contains(t, err.Error(), " "+h)
			}
			assert.NotContains(t, err.Error(), "hunter2", "a password in the URL is not echoed")
		})
	}
}

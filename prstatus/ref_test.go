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

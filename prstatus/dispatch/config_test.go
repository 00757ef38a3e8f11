package dispatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    func(c *Config)
		wantErr string
	}{
		{name: "empty: the defaults", yaml: "", want: func(*Config) {}},
		{name: "comments only", yaml: "# nothing\n", want: func(*Config) {}},
		{
			name: "every key",
			yaml: `user: dev-bot
labels: {wip: in-progress, ready: ready-for-review}
review_bots: [sonnet, gpt, security]
handoff_assignee: alice
wip_stale_after: 90m
skip_authors: [dependabot]
max_spawns: 2
`,
			want: func(c *Config) {
				c.User, c.Labels = "dev-bot", Labels{WIP: "in-progress", Ready: "ready-for-review"}
				c.ReviewBots, c.HandoffAssignee = []ReviewBot{{Name: "sonnet"}, {Name: "gpt"}, {Name: "security"}}, "alice"
				c.WIPStaleAfter, c.SkipAuthors, c.MaxSpawns = 90*time.Minute, []string{"dependabot"}, 2
			},
		},
		{name: "one label: the other keeps its default", yaml: "labels: {wip: busy}\n", want: func(c *Config) { c.Labels.WIP = "busy" }},
		{name: "no author skipped", yaml: "skip_authors: []\n", want: func(c *Config) { c.SkipAuthors = []string{} }},
		{name: "handoffs only", yaml: "max_spawns: 0\n", want: func(c *Config) { c.MaxSpawns = 0 }},
		{name: "an unknown key", yaml: "review_bot: [sonnet]\n", wantErr: `field review_bot not found`},
		{name: "not YAML", yaml: "labels: [wip\n", wantErr: "yaml:"},
		{name: "a duration without a unit", yaml: "wip_stale_after: 3600\n", wantErr: "line 1: cannot unmarshal !!int `3600` into time.Duration"},
		{name: "a duration that is not one", yaml: "wip_stale_after: soon\n", wantErr: "soon"},
		{name: "a zero duration", yaml: "wip_stale_after: 0s\n", wantErr: "wip_stale_after must be a positive duration"},
		{name: "too many spawns", yaml: "max_spawns: 50\n", wantErr: "max_spawns must be between 0 and 20"},
		{name: "negative spawns", yaml: "max_spawns: -1\n", wantErr: "max_spawns must be between 0 and 20"},
		{name: "one label for both", yaml: "labels: {wip: x, ready: X}\n", wantErr: "the same label"},
		{name: "an empty label", yaml: "labels: {ready: ''}\n", wantErr: "labels.ready is empty"},
		{name: "a user with a space", yaml: "user: a b\n", wantErr: "is not a GitHub login"},
		{name: "an empty bot name", yaml: "review_bots: ['']\n", wantErr: "review_bots holds"},
		{name: "a list where a name belongs", yaml: "user: [a]\n", wantErr: "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.yaml))
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrConfig)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "\n", "one line")
				return
			}
			require.NoError(t, err)
			want := DefaultConfig()
			tt.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, Labels{WIP: "wip", Ready: "ready"}, c.Labels)
	assert.Equal(t, time.Hour, c.WIPStaleAfter)
	assert.Equal(t, []string{"dependabot[bot]", "renovate[bot]"}, c.SkipAuthors)
	assert.Equal(t, 1, c.MaxSpawns)
	assert.Empty(t, c.User, "the token's user")
}

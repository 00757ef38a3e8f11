package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestWhoMaySignAsAReviewBot(t *testing.T) {
	review := func(login string, bot bool, assoc prstatus.Association) prstatus.Review {
		return prstatus.Review{Author: prstatus.Actor{Login: login, IsBot: bot}, AuthorAssociation: assoc}
	}
	named, anonymous := ReviewBot{Name: "sonnet", Login: "sonnet-reviewer[bot]"}, ReviewBot{Name: "sonnet"}
	tests := []struct {
		name       string
		r          prstatus.Review
		named, any bool
	}{
		{"the configured login, in GraphQL's form", review("sonnet-reviewer", true, prstatus.AssocNone), true, true},
		{"another GitHub App", review("other-app[bot]", true, prstatus.AssocNone), false, true},
		{"a person who registered the app's name as a user login", review("sonnet-reviewer", false, prstatus.AssocNone), false, false},
		{"a member", review("maintainer", false, prstatus.AssocMember), false, true},
		{"a collaborator", review("helper", false, prstatus.AssocCollaborator), false, true},
		{"a drive-by commenter", review("drive-by", false, prstatus.AssocNone), false, false},
		{"a past contributor", review("contrib", false, prstatus.AssocContributor), false, false},
		{"a missing association is no access", review("unknown", false, ""), false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.named, named.signs(tt.r), "%s, NAME: LOGIN", tt.name)
		assert.Equal(t, tt.any, anonymous.signs(tt.r), "%s, NAME", tt.name)
	}
}

func TestWhomTheDispatcherWorksFor(t *testing.T) {
	cfg := DefaultConfig()
	cfg.User, cfg.TrustedAuthors = "worker", []string{"friend"}
	author := func(login string, assoc prstatus.Association) *PR {
		return &PR{Snapshot: prstatus.Snapshot{Author: prstatus.Actor{Login: login}}, AuthorAssociation: assoc}
	}
	for _, p := range []*PR{author("worker", prstatus.AssocNone), author("Friend", prstatus.AssocFirstTimeContributor),
		author("owner", prstatus.AssocOwner), author("member", prstatus.AssocMember), author("collab", prstatus.AssocCollaborator)} {
		assert.Empty(t, cfg.distrust(p), "%s", p.Author.Login)
	}
	for login, assoc := range map[string]prstatus.Association{"stranger": prstatus.AssocNone, "contrib": prstatus.AssocContributor,
		"first": prstatus.AssocFirstTimer, "ghost": "", "mannequin": prstatus.AssocMannequin} {
		assert.Contains(t, cfg.distrust(author(login, assoc)), "has no write access", login)
	}
	fork := author("member", prstatus.AssocMember)
	fork.IsCrossRepository, fork.HeadOwner = true, "Member"
	assert.Contains(t, cfg.distrust(fork), "from a fork")
	cfg.AllowForks = true
	assert.Empty(t, cfg.distrust(fork), "the author's own fork")
	for _, owner := range []string{"stranger", ""} {
		other := *fork
		other.HeadOwner = owner
		assert.Equal(t, "from a fork its author does not own: allow_forks takes only an author's own fork", cfg.distrust(&other),
			"a fork owned by %q", owner)
	}
	assert.Contains(t, cfg.distrust(author("not a login; rm -rf", prstatus.AssocNone)), "an author whose login is not a GitHub login",
		"a reason names nothing that is not a login")
}

func TestReviewBotsAreConfiguredByNameAndLogin(t *testing.T) {
	cfg, err := ParseConfig([]byte("review_bots:\n  - sonnet: sonnet-reviewer[bot]\n  - \"gpt: gpt-bot\"\n  - security\n"))
	require.NoError(t, err)
	assert.Equal(t, []ReviewBot{{Name: "sonnet", Login: "sonnet-reviewer[bot]"}, {Name: "gpt", Login: "gpt-bot"}, {Name: "security"}}, cfg.ReviewBots)
	for yaml, want := range map[string]string{
		"review_bots: [\"sonnet: not a login\"]\n": "is not a GitHub login",
		"review_bots: [[a, b]]\n":                  "a review bot is NAME or NAME: LOGIN",
		"review_bots: [\"so net\"]\n":              "which is not a name",
		"trusted_authors: [\"a b\"]\n":             "trusted_authors holds",
	} {
		_, err := ParseConfig([]byte(yaml))
		require.ErrorIs(t, err, ErrConfig, yaml)
		assert.Contains(t, err.Error(), want, yaml)
	}
}

func TestRuleNineCountsAConfiguredBotsThreadOnlyFromItsApp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.User, cfg.ReviewBots = "worker", []ReviewBot{{Name: "sonnet", Login: "sonnet-reviewer[bot]"}}
	thread := func(a prstatus.Actor) prstatus.Thread {
		return prstatus.Thread{Comments: []prstatus.Comment{{Author: a, AuthorAssociation: prstatus.AssocNone}}}
	}
	assert.True(t, cfg.countsThread(thread(prstatus.Actor{Login: "sonnet-reviewer[bot]", IsBot: true})), "the app")
	assert.False(t, cfg.countsThread(thread(prstatus.Actor{Login: "sonnet-reviewer"})), "a person who took the app's name")
	assert.False(t, cfg.countsThread(thread(prstatus.Actor{Login: "other-app[bot]", IsBot: true})), "another app")
}

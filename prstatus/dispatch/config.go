package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ErrConfig is wrapped by every error about the dispatcher's configuration.
var ErrConfig = errors.New("invalid dispatch configuration")

// DefaultConfigPath is where the dispatcher looks for its configuration when no --config is
// given: this path on the target repository's default branch, read through GitHub's API, never
// from the working directory (docs/security.md).
const DefaultConfigPath = ".prmonitor/dispatch.yaml"

// maxSpawnsLimit bounds max_spawns: a run that starts more workers than this is a mistake.
const maxSpawnsLimit = 20

// Config is the dispatcher's configuration. Every key is optional.
type Config struct {
	// User is the login the workers act as: whose fix-plan and self-review comments count, and
	// to whom a new issue is assigned. Empty means the token's user.
	User string `yaml:"user" json:"user"`
	// Labels are the names of the lock and the hand-off labels.
	Labels Labels `yaml:"labels" json:"labels"`
	// ReviewBots are the review bots whose reviews gate a hand-off: "NAME" or "NAME: LOGIN".
	ReviewBots []ReviewBot `yaml:"review_bots" json:"review_bots"`
	// HandoffAssignee is the human a ready pull request is assigned to (empty: nobody).
	HandoffAssignee string `yaml:"handoff_assignee" json:"handoff_assignee,omitempty"`
	// WIPStaleAfter is how long a wip label holds its pull request: an older one was left by a
	// worker that died, and is removed.
	WIPStaleAfter time.Duration `yaml:"wip_stale_after" json:"wip_stale_after"`
	// SkipAuthors are the authors whose pull requests the dispatcher leaves alone.
	SkipAuthors []string `yaml:"skip_authors" json:"skip_authors"`
	// TrustedAuthors are authors whose pull requests and issues the dispatcher works on although
	// they have no write access (besides the user and OWNER, MEMBER and COLLABORATOR).
	TrustedAuthors []string `yaml:"trusted_authors" json:"trusted_authors"`
	// AllowForks lets the dispatcher work on pull requests from forks (by trusted authors).
	AllowForks bool `yaml:"allow_forks" json:"allow_forks"`
	// MaxSpawns is how many workers one run may start (SPAWN lines).
	MaxSpawns int `yaml:"max_spawns" json:"max_spawns"`
}

// Labels names the labels the dispatcher uses.
type Labels struct {
	WIP   string `yaml:"wip" json:"wip"`
	Ready string `yaml:"ready" json:"ready"`
}

// DefaultConfig is the configuration without a file.
func DefaultConfig() Config {
	return Config{
		Labels:         Labels{WIP: "wip", Ready: "ready"},
		ReviewBots:     []ReviewBot{},
		WIPStaleAfter:  time.Hour,
		SkipAuthors:    []string{"dependabot[bot]", "renovate[bot]"},
		TrustedAuthors: []string{},
		MaxSpawns:      1,
	}
}

// ParseConfig reads a YAML configuration over the defaults: a key that is absent keeps its
// default, an unknown key is an error (a typo must not silently fall back). Every error wraps
// ErrConfig and fits on one line.
func ParseConfig(data []byte) (Config, error) {
	cfg := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%w: %s", ErrConfig, text.Error(err))
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Validate checks the values a run depends on.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.TrimSpace(c.Labels.WIP) == "":
		return bad("labels.wip is empty")
	case strings.TrimSpace(c.Labels.Ready) == "":
		return bad("labels.ready is empty")
	case strings.EqualFold(c.Labels.WIP, c.Labels.Ready):
		return bad("labels.wip and labels.ready are the same label %q", c.Labels.WIP)
	case c.WIPStaleAfter <= 0:
		return bad("wip_stale_after must be a positive duration such as 1h or 90m, not %s", c.WIPStaleAfter)
	case c.MaxSpawns < 0 || c.MaxSpawns > maxSpawnsLimit:
		return bad("max_spawns must be between 0 and %d, not %d", maxSpawnsLimit, c.MaxSpawns)
	}
	for _, l := range []struct{ key, v string }{{"user", c.User}, {"handoff_assignee", c.HandoffAssignee}} {
		if strings.ContainsAny(l.v, " \t\n/") {
			return bad("%s %q is not a GitHub login", l.key, l.v)
		}
	}
	for _, n := range c.SkipAuthors {
		if strings.TrimSpace(n) == "" || strings.ContainsAny(n, " \t\n/") {
			return bad("skip_authors holds %q, which is not a name", n)
		}
	}
	for _, n := range c.TrustedAuthors {
		if !isLogin(n) {
			return bad("trusted_authors holds %q, which is not a GitHub login", n)
		}
	}
	for _, b := range c.ReviewBots {
		switch {
		case !botName().MatchString(b.Name):
			return bad("review_bots holds %q, which is not a name (letters, digits, . _ -)", b.Name)
		case b.Login != "" && !isLogin(b.Login):
			return bad("review_bots: %s's login %q is not a GitHub login", b.Name, b.Login)
		}
	}
	return nil
}

var (
	// login is a GitHub login: letters, digits and single hyphens, at most 39, not starting with
	// a hyphen; a GitHub App's bot account carries "[bot]" in REST's form.
	login = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}(\[bot\])?$`)
	})
	// botName is a review bot's name as its sentinel carries it.
	botName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })
)

func isLogin(s string) bool { return login().MatchString(s) }

// ReviewBot is a review bot whose reviews gate a hand-off. Its reviews carry the sentinel
// "<!-- review-bot:NAME -->"; a sentinel counts only on a review by Login when one is given, else
// on a review by someone with write access or by a GitHub App (docs/dispatch.md).
type ReviewBot struct {
	Name  string
	Login string
}

// String renders the entry as the configuration writes it: "NAME" or "NAME: LOGIN".
func (b ReviewBot) String() string {
	if b.Login == "" {
		return b.Name
	}
	return b.Name + ": " + b.Login
}

// MarshalText implements encoding.TextMarshaler (the JSON form is the configuration's).
func (b ReviewBot) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads "NAME" or "NAME: LOGIN".
func (b *ReviewBot) UnmarshalText(text []byte) error {
	name, login, _ := strings.Cut(string(text), ":")
	*b = ReviewBot{Name: strings.TrimSpace(name), Login: strings.TrimSpace(login)}
	return nil
}

// UnmarshalYAML reads an entry of review_bots: a name, "NAME: LOGIN" quoted, or the mapping
// NAME: LOGIN that an unquoted "- sonnet: sonnet-reviewer[bot]" is in YAML.
func (b *ReviewBot) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode:
		return b.UnmarshalText([]byte(n.Value))
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Kind == yaml.ScalarNode && n.Content[1].Kind == yaml.ScalarNode:
		*b = ReviewBot{Name: strings.TrimSpace(n.Content[0].Value), Login: strings.TrimSpace(n.Content[1].Value)}
		return nil
	}
	return fmt.Errorf("line %d: a review bot is NAME or NAME: LOGIN", n.Line)
}

// withUser resolves the worker identity: the configured user, else the token's.
func (c Config) withUser(viewer string) Config {
	if c.User == "" {
		c.User = viewer
	}
	return c
}

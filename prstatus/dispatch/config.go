package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ErrConfig is wrapped by every error about the dispatcher's configuration.
var ErrConfig = errors.New("invalid dispatch configuration")

// DefaultConfigPath is where the dispatcher looks for its configuration, relative to the working
// directory, when no --config is given.
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
	// ReviewBots are the review bots whose reviews gate a hand-off. A review whose body holds
	// "<!-- review-bot:NAME -->" is bot NAME's, whoever posted it.
	ReviewBots []string `yaml:"review_bots" json:"review_bots"`
	// HandoffAssignee is the human a ready pull request is assigned to (empty: nobody).
	HandoffAssignee string `yaml:"handoff_assignee" json:"handoff_assignee,omitempty"`
	// WIPStaleAfter is how long a wip label holds its pull request: an older one was left by a
	// worker that died, and is removed.
	WIPStaleAfter time.Duration `yaml:"wip_stale_after" json:"wip_stale_after"`
	// SkipAuthors are the authors whose pull requests the dispatcher leaves alone.
	SkipAuthors []string `yaml:"skip_authors" json:"skip_authors"`
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
		Labels:        Labels{WIP: "wip", Ready: "ready"},
		ReviewBots:    []string{},
		WIPStaleAfter: time.Hour,
		SkipAuthors:   []string{"dependabot[bot]", "renovate[bot]"},
		MaxSpawns:     1,
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
		return Config{}, fmt.Errorf("%w: %s", ErrConfig, strings.Join(strings.Fields(err.Error()), " "))
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
	for _, list := range []struct {
		key   string
		names []string
	}{{"review_bots", c.ReviewBots}, {"skip_authors", c.SkipAuthors}} {
		for _, n := range list.names {
			if strings.TrimSpace(n) == "" || strings.ContainsAny(n, " \t\n/") {
				return bad("%s holds %q, which is not a name", list.key, n)
			}
		}
	}
	return nil
}

// withUser resolves the worker identity: the configured user, else the token's.
func (c Config) withUser(viewer string) Config {
	if c.User == "" {
		c.User = viewer
	}
	return c
}

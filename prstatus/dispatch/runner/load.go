package runner

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// maxConfigBytes bounds a configuration file: it is a few lines of YAML.
const maxConfigBytes = 64 << 10

// LoadConfig reads the dispatcher's configuration from the file path, which was named on purpose
// (--config). With path empty it returns the defaults: it never looks in the working directory,
// whose files whoever runs the dispatcher there may not have written (docs/security.md). Every
// error wraps dispatch.ErrConfig.
func LoadConfig(path string) (dispatch.Config, error) {
	if path == "" {
		return dispatch.DefaultConfig(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return dispatch.Config{}, fmt.Errorf("%w: %v", dispatch.ErrConfig, err)
	}
	if len(data) > maxConfigBytes {
		return dispatch.Config{}, fmt.Errorf("%w: %s is larger than %d bytes", dispatch.ErrConfig, path, maxConfigBytes)
	}
	cfg, err := dispatch.ParseConfig(data)
	if err != nil {
		return dispatch.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ConfigFor is the configuration of a run on repo: the file path when one is named (--config),
// else dispatch.DefaultConfigPath on the repository's default branch, read through GitHub's API
// (what the repository's writers put there), else the defaults. where says which, for the run's
// report. Both `prmonitor dispatch` and the MCP tool pr_dispatch load it this way.
func ConfigFor(ctx context.Context, src Source, repo dispatch.RepoRef, path string) (cfg dispatch.Config, where string, err error) {
	if path != "" {
		cfg, err := LoadConfig(path)
		return cfg, path, err
	}
	file, _, _, err := src.REST().Repositories.GetContents(ctx, repo.Owner, repo.Name, dispatch.DefaultConfigPath, nil)
	switch {
	case errors.Is(err, ghclient.ErrNotFound):
		return dispatch.DefaultConfig(), "the defaults (no " + dispatch.DefaultConfigPath + " on " + repo.String() + "'s default branch)", nil
	case errors.Is(err, ghclient.ErrUnauthorized):
		// The first request of a run: a rejected token is the news, not the file it was reading.
		return dispatch.Config{}, "", restError(err)
	case err != nil:
		return dispatch.Config{}, "", fmt.Errorf("read %s from %s: %w", dispatch.DefaultConfigPath, repo, restError(err))
	case file == nil:
		return dispatch.Config{}, "", fmt.Errorf("%w: %s on %s is not a file", dispatch.ErrConfig, dispatch.DefaultConfigPath, repo)
	case file.GetSize() > maxConfigBytes:
		return dispatch.Config{}, "", fmt.Errorf("%w: %s on %s is larger than %d bytes", dispatch.ErrConfig, dispatch.DefaultConfigPath, repo, maxConfigBytes)
	}
	text, err := file.GetContent()
	if err != nil {
		return dispatch.Config{}, "", fmt.Errorf("%w: %s on %s: %v", dispatch.ErrConfig, dispatch.DefaultConfigPath, repo, err)
	}
	where = repo.String() + ":" + dispatch.DefaultConfigPath + " (default branch)"
	cfg, err = dispatch.ParseConfig([]byte(text))
	if err != nil {
		return dispatch.Config{}, "", fmt.Errorf("%s: %w", where, err)
	}
	return cfg, where, nil
}

// LoadTemplates returns the built-in task templates, overridden by the directory dir's when dir
// is not empty. Every error about dir wraps dispatch.ErrConfig.
func LoadTemplates(dir string) (*dispatch.Templates, error) {
	if dir == "" {
		return dispatch.BuiltinTemplates()
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: templates: %v", dispatch.ErrConfig, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%w: templates: %s is not a directory", dispatch.ErrConfig, dir)
	}
	return dispatch.LoadTemplates(os.DirFS(dir))
}

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
)

// LoadConfig reads the dispatcher's configuration from path; with path empty, from
// dispatch.DefaultConfigPath when that file exists, else it returns the defaults. A path that was
// named and cannot be read is an error. Every error wraps dispatch.ErrConfig.
func LoadConfig(path string) (dispatch.Config, error) {
	named := path != ""
	if !named {
		path = dispatch.DefaultConfigPath
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !named:
		return dispatch.DefaultConfig(), nil
	case err != nil:
		return dispatch.Config{}, fmt.Errorf("%w: %v", dispatch.ErrConfig, err)
	}
	cfg, err := dispatch.ParseConfig(data)
	if err != nil {
		return dispatch.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
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

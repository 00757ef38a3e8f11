package store

import (
	"errors"
	"path"
	"strings"
)

// DefaultDir is the user's state directory for prmonitor on goos (runtime.GOOS), read from the
// environment through getenv (os.Getenv):
//
//	Linux, BSD and others  $XDG_STATE_HOME/prmonitor, else ~/.local/state/prmonitor
//	macOS                  ~/Library/Application Support/prmonitor/state
//	Windows                %LOCALAPPDATA%\prmonitor\state
//
// A relative XDG_STATE_HOME is ignored, as the XDG specification asks. The error says what is
// missing; the caller can point --state-dir elsewhere.
func DefaultDir(getenv func(string) string, goos string) (string, error) {
	switch goos {
	case "windows":
		base := getenv("LOCALAPPDATA")
		if base == "" {
			if profile := getenv("USERPROFILE"); profile != "" {
				base = windowsJoin(profile, "AppData", "Local")
			}
		}
		if base == "" {
			return "", errors.New("store: neither LOCALAPPDATA nor USERPROFILE is set; choose a state directory with --state-dir")
		}
		return windowsJoin(base, "prmonitor", "state"), nil
	case "darwin", "ios":
		home, err := homeDir(getenv)
		if err != nil {
			return "", err
		}
		return path.Join(home, "Library", "Application Support", "prmonitor", "state"), nil
	default:
		if x := getenv("XDG_STATE_HOME"); path.IsAbs(x) {
			return path.Join(x, "prmonitor"), nil
		}
		home, err := homeDir(getenv)
		if err != nil {
			return "", err
		}
		return path.Join(home, ".local", "state", "prmonitor"), nil
	}
}

func homeDir(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if !path.IsAbs(home) {
		return "", errors.New("store: HOME is not set to an absolute path; choose a state directory with --state-dir")
	}
	return home, nil
}

// windowsJoin joins with backslashes whatever the build platform, so DefaultDir answers for
// Windows the same everywhere (and its tests run on any machine).
func windowsJoin(base string, elems ...string) string {
	return strings.TrimRight(base, `\/`) + `\` + strings.Join(elems, `\`)
}

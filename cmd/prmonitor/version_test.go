package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prmonitor version says which code it is (the module's version, else the commit and whether the
// work tree had changes) and whether it is the team build.
func TestVersionSaysWhichCodeAndWhichBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		team    bool
		want    string
	}{
		{"nothing recorded", "dev", nil, false, "prmonitor dev (default build)"},
		{"go install module@version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, false, "prmonitor v1.4.0 (default build)"},
		{"a clean checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef0123", "false")}, false,
			"prmonitor dev (commit 0123456789ab; default build)"},
		{"a checkout with changes, the team build", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef0123", "true")}, true,
			"prmonitor dev (commit 0123456789ab, modified; team build)"},
		{"-ldflags wins over the module version", "v2.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: vcs("abc", "false")}, false,
			"prmonitor v2.0.0 (commit abc; default build)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, versionLine(tt.stamped, tt.info, tt.team))
		})
	}

	res := runCLI(t, nil, "version")
	require.Equal(t, exitOK, res.code, res.stderr)
	build := "default build"
	if teamBuild {
		build = "team build"
	}
	assert.Regexp(t, `^prmonitor \S+ \((commit [0-9a-f]+(, modified)?; )?`+build+`\)\n$`, res.stdout)
}

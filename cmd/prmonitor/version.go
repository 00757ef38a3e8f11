package main

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

var versionCommand = command{
	name:     "version",
	synopsis: "version",
	about: "Print prmonitor's version (the module's version, or the commit it was built from and whether the work tree\n" +
		"had changes) and whether this is the team build (-tags team); 'prmonitor -v' does the same.",
}

// runVersion is `prmonitor version`.
func runVersion(args []string, e env) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if code, ok := parseNoArguments(fs, versionCommand, args, e); !ok {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.Stdout, versionLine(version, info, teamBuild))
	return exitOK
}

// versionLine says what this binary is: "prmonitor v1.2.0 (default build)", or for a binary built
// from a checkout, "prmonitor dev (commit 0123456789ab, modified; team build)". stamped is the
// version -ldflags set ("dev" when none); info is what the Go toolchain recorded (nil: nothing).
func versionLine(stamped string, info *debug.BuildInfo, team bool) string {
	v := stamped
	var notes []string
	if info != nil {
		if mv := info.Main.Version; v == "dev" && mv != "" && mv != "(devel)" {
			v = mv // go install module@version
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			note := "commit " + rev[:min(len(rev), 12)]
			if settings["vcs.modified"] == "true" {
				note += ", modified"
			}
			notes = append(notes, note)
		}
	}
	build := "default build"
	if team {
		build = "team build"
	}
	notes = append(notes, build)
	return fmt.Sprintf("prmonitor %s (%s)", v, strings.Join(notes, "; "))
}

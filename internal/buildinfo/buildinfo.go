// Package buildinfo is evalgate's version line: what the release build stamped into the binary
// at link time, else what the Go toolchain recorded in it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the version evalgate prints for --version and "evalgate version", from the
// values a release build stamped (each "" when not stamped) and the binary's build info.
func Version(version, commit, date string) string {
	info, _ := debug.ReadBuildInfo()
	return format(version, commit, date, info)
}

// format renders "1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z)". Values not
// stamped come from info: "go install …@v1.2.3" records the module version, a build inside a
// git checkout its revision, commit time and whether the tree was edited. Nothing known is "dev".
func format(version, commit, date string, info *debug.BuildInfo) string {
	if info != nil {
		if version == "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		vcs := map[string]string{}
		for _, s := range info.Settings {
			vcs[s.Key] = s.Value
		}
		if commit == "" && vcs["vcs.revision"] != "" {
			commit = shortCommit(vcs["vcs.revision"])
			if vcs["vcs.modified"] == "true" {
				commit += "+dirty"
			}
		}
		if date == "" {
			date = vcs["vcs.time"]
		}
	}
	if version == "" {
		version = "dev"
	}
	// Tags read v1.2.3, goreleaser's .Version 1.2.3: print one form whichever was stamped.
	if len(version) > 1 && version[0] == 'v' && version[1] >= '0' && version[1] <= '9' {
		version = version[1:]
	}
	var details []string
	if commit != "" {
		details = append(details, "commit "+shortCommit(commit))
	}
	if date != "" {
		details = append(details, "built "+date)
	}
	if len(details) == 0 {
		return version
	}
	return version + " (" + strings.Join(details, ", ") + ")"
}

// shortCommit abbreviates a full hash to the 12 characters Go pseudo-versions use.
func shortCommit(c string) string {
	if len(c) > 12 && !strings.Contains(c, "+") {
		return c[:12]
	}
	return c
}

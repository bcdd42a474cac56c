package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	vcs := func(version string, kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/evalgate/evalgate", Version: version}}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"nothing known", "", "", "", nil, "dev"},
		{"devel without vcs", "", "", "", vcs("(devel)"), "dev"},
		{"goreleaser stamp", "1.2.3", sha, "2026-01-02T03:04:05Z", nil,
			"1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z)"},
		{"stamp wins over build info", "1.2.3", sha, "2026-01-02T03:04:05Z",
			vcs("v0.0.0-20260101000000-ffffffffffff", "vcs.revision", "ffffffffffffffff", "vcs.modified", "true", "vcs.time", "2026-01-01T00:00:00Z"),
			"1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z)"},
		{"docker build arg with v", "v1.2.3", "", "", nil, "1.2.3"},
		{"go install at a tag", "", "", "", vcs("v1.4.0"), "1.4.0"},
		{"local build in a clean checkout", "", "", "",
			vcs("v0.0.0-20260102030405-0123456789ab", "vcs.revision", sha, "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "false"),
			"0.0.0-20260102030405-0123456789ab (commit 0123456789ab, built 2026-01-02T03:04:05Z)"},
		{"local build in an edited checkout", "", "", "",
			vcs("(devel)", "vcs.revision", sha, "vcs.modified", "true"),
			"dev (commit 0123456789ab+dirty)"},
		{"stamped version, commit from vcs", "2.0.0", "", "", vcs("(devel)", "vcs.revision", sha),
			"2.0.0 (commit 0123456789ab)"},
		{"version not a semver keeps its v", "vnext", "", "", nil, "vnext"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := format(tt.version, tt.commit, tt.date, tt.info); got != tt.want {
				t.Errorf("format(%q, %q, %q) = %q, want %q", tt.version, tt.commit, tt.date, got, tt.want)
			}
		})
	}
}

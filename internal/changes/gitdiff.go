package changes

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// FromGitDiff lists the files changed between base and head (three-dot: since their merge
// base), both names of a rename included. It is the fallback when the pull request files API
// is capped (3,000 files) or unavailable; the checkout needs both commits (fetch-depth: 0).
func FromGitDiff(ctx context.Context, repoDir, base, head string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", repoDir, "diff", "--no-color", "--no-ext-diff", "-M", base+"..."+head)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w: %s", base, head, err, strings.TrimSpace(stderr.String()))
	}
	return ParseDiff(out)
}

// ParseDiff lists the files a unified diff touches, git's a/ and b/ prefixes stripped and
// /dev/null (the missing side of an add or delete) dropped.
func ParseDiff(data []byte) ([]string, error) {
	fds, err := diff.ParseMultiFileDiff(data)
	if err != nil {
		return nil, fmt.Errorf("parse diff: %w", err)
	}
	seen := map[string]bool{}
	var files []string
	add := func(name string) {
		if name == "" || name == "/dev/null" {
			return
		}
		name = strings.TrimPrefix(strings.TrimPrefix(name, "a/"), "b/")
		if !seen[name] {
			seen[name] = true
			files = append(files, name)
		}
	}
	for _, fd := range fds {
		add(fd.OrigName)
		add(fd.NewName)
		// A pure rename or mode change has no ---/+++ lines; its names are in the header.
		for _, x := range fd.Extended {
			for _, p := range []string{"rename from ", "rename to "} {
				if strings.HasPrefix(x, p) {
					add(strings.TrimPrefix(x, p))
				}
			}
		}
	}
	return files, nil
}

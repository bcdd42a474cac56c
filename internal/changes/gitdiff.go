package changes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// FromGitDiff lists the files changed between base and head (three-dot: since their merge
// base), both names of a rename included. It is the fallback when the pull request files API
// is capped (3,000 files) or unavailable; the checkout needs both commits (fetch-depth: 0).
//
// It asks git for names only (--name-status -z): a diff's contents can be hundreds of
// megabytes, its names are not, and -z keeps names with spaces, newlines or bytes that are not
// UTF-8 verbatim instead of C-quoted. Rename detection is off so a rename is listed as the
// deletion of one name and the addition of the other: both names, without git comparing the
// contents of every added file against every deleted one.
//
// The checkout may belong to another user (the runner's, with evalgate root in a container):
// it is the repository being graded, so git's ownership check is waived for it alone.
func FromGitDiff(ctx context.Context, repoDir, base, head string) ([]string, error) {
	trusted := repoDir
	if abs, err := filepath.Abs(repoDir); err == nil {
		trusted = abs // git compares the option with the absolute path
	}
	cmd := exec.CommandContext(ctx, "git", "-c", "safe.directory="+trusted, "-C", repoDir, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", base+"..."+head)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w", base, head, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w", base, head, err)
	}
	files, perr := parseNameStatus(out)
	if perr != nil {
		// Drain so git is not blocked writing to a pipe nobody reads.
		_, _ = io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w: %s", base, head, err, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w", base, head, perr)
	}
	return files, nil
}

// parseNameStatus lists the files in the output of git diff --name-status -z, each once, in
// git's order: status, NUL, path, NUL; a rename or copy (R100, C75) carries the old path and
// then the new one, and both are listed.
func parseNameStatus(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	sc.Split(splitNUL)
	seen := map[string]bool{}
	var files []string
	for sc.Scan() {
		status := sc.Text()
		if status == "" {
			return nil, errors.New("parse name-status: empty status")
		}
		paths := 1
		if status[0] == 'R' || status[0] == 'C' {
			paths = 2
		}
		for range paths {
			if !sc.Scan() {
				if err := sc.Err(); err != nil {
					return nil, fmt.Errorf("parse name-status: %w", err)
				}
				return nil, fmt.Errorf("parse name-status: status %q has no path", status)
			}
			if name := sc.Text(); !seen[name] {
				seen[name] = true
				files = append(files, name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parse name-status: %w", err)
	}
	return files, nil
}

// splitNUL is a bufio.SplitFunc for NUL-terminated fields; a last field without its NUL is
// still a field.
func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

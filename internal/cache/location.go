package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// DefaultDir is the user's cache directory for evalgate: $XDG_CACHE_HOME/evalgate, else
// $HOME/.cache/evalgate. It is outside any checkout, so a pull request cannot supply entries.
// getenv is the environment to read (the process's, or a test's).
func DefaultDir(getenv func(string) string) (string, error) {
	// The XDG spec ignores a relative XDG_CACHE_HOME.
	if x := getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "evalgate"), nil
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "evalgate"), nil
	}
	return "", errors.New("neither XDG_CACHE_HOME nor HOME is set to an absolute path (set one, or pass a cache directory)")
}

// gitTimeout bounds each git command CheckDir runs.
const gitTimeout = 30 * time.Second

// CheckDir refuses a cache directory whose entries the repository at repo could have
// supplied: one inside the repository or its git work tree, one holding the repository, or
// one with files tracked by git. Symbolic links are resolved first, so a link cannot hide
// where the directory really is. The error says why, for the warning that turns the cache off.
func CheckDir(ctx context.Context, dir, repo string) error {
	d, err := resolve(dir)
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	repos := []string{repo}
	if top := gitOutput(ctx, repo, "rev-parse", "--show-toplevel"); top != "" {
		repos = append(repos, strings.TrimSpace(top))
	}
	for _, r := range repos {
		rr, err := resolve(r)
		if err != nil {
			return fmt.Errorf("repository %s: %w", r, err)
		}
		if fsroot.Within(rr, d) || fsroot.Within(d, rr) {
			return fmt.Errorf("%s overlaps the repository %s: a pull request could commit forged replies there (use a directory outside the checkout, e.g. the default ~/.cache/evalgate)", dir, rr)
		}
	}
	if _, err := os.Stat(d); err == nil {
		if out := gitOutput(ctx, d, "ls-files", "-z", "--", "."); out != "" {
			n := strings.Count(out, "\x00")
			return fmt.Errorf("%s holds %d file(s) tracked by git: cached replies must come from evalgate, not from a commit", dir, n)
		}
	}
	return nil
}

// resolve is the absolute path with symbolic links resolved; for a path that does not exist
// yet, its deepest existing ancestor is resolved and the rest appended.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// gitOutput runs git in dir and returns its output, "" when git fails (not a repository,
// no git): then nothing there is tracked.
func gitOutput(ctx context.Context, dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// fsmonitor is off: a repository's .git/config must not make this check run a program.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-C", dir}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return ""
	}
	return out.String()
}

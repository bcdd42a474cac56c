// Package workspace prepares the scratch directory an agent runs in: a fresh copy of the
// suite's template per test, committed as a git baseline so that what the agent changed is a
// plain `git diff` — new, deleted, renamed and binary files included.
package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoGit is returned when git is not installed: diffs cannot be taken without it.
var ErrNoGit = errors.New("git is required for workspace diffs; install git")

// Workspace is one prepared directory.
type Workspace struct {
	dir string
}

// Prepare copies template into a new directory under parent ("" = the system temp dir) and
// commits it as the baseline. Nested .git directories in the template are not copied: the
// baseline must see their files as plain content, and a nested repository would hide them.
func Prepare(ctx context.Context, parent, template string) (*Workspace, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	dir, err := os.MkdirTemp(parent, "evalgate-ws-")
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	w := &Workspace{dir: dir}
	if template != "" {
		if err := copyTree(template, dir); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("workspace: copy %s: %w", template, err)
		}
	}
	if _, err := w.git(ctx, "init", "-q"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("workspace baseline: %w", err)
	}
	if err := w.baseline(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return w, nil
}

// baseline commits the directory as it is now: Diff reports changes made after this point.
// Calling it again moves the baseline, which is how setup hooks and earlier tests on a shared
// workspace are kept out of a test's diff.
func (w *Workspace) baseline(ctx context.Context) error {
	if err := w.addAll(ctx); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	if _, err := w.git(ctx, "-c", "user.email=evalgate@localhost", "-c", "user.name=evalgate", "commit", "-q", "--allow-empty", "--no-verify", "-m", "evalgate-baseline"); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	return nil
}

// Dir is the workspace directory.
func (w *Workspace) Dir() string { return w.dir }

// Diff is everything the agent changed since the baseline, as a unified diff ("" = nothing).
func (w *Workspace) Diff(ctx context.Context) (string, error) {
	if _, err := os.Stat(w.dir); err != nil {
		return "", fmt.Errorf("workspace %s is gone: %w", w.dir, err)
	}
	if err := w.addAll(ctx); err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	out, err := w.git(ctx, "diff", "--cached", "--no-color", "--no-ext-diff", "-M", "HEAD")
	if err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	return strings.TrimRight(out, "\n"), nil
}

// Close removes the workspace unless keep is set; it returns the kept path.
func (w *Workspace) Close(keep bool) (string, error) {
	if keep {
		// An agent that deleted its workspace leaves nothing to inspect: do not point at it.
		if _, err := os.Stat(w.dir); err != nil {
			return "", nil
		}
		return w.dir, nil
	}
	return "", os.RemoveAll(w.dir)
}

// git runs git in the workspace, isolated from the user's configuration and from any
// GIT_DIR an enclosing job set, so the baseline is the same on every machine.
func (w *Workspace) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.autocrlf=false", "-c", "core.quotepath=false"}, args...)...)
	cmd.Dir = w.dir
	env := []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" && !strings.HasPrefix(k, "GIT_CONFIG") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[len(args)-1], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// copyTree copies src into dst: regular files with their modes, symlinks as symlinks (never
// followed, so a template cannot pull in files from outside itself), .git directories skipped.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == ".git" && path != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, devices: not part of a template
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

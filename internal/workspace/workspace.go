// Package workspace prepares the scratch directory an agent runs in: a fresh copy of the
// suite's template per test, committed as a git baseline so that what the agent changed is a
// plain `git diff` — new, deleted, renamed and binary files included.
//
// The baseline repository is evalgate's own and lives outside the workspace, in a private
// temporary directory; git runs with the workspace as its work tree and with everything that
// could run a program or change what is staged or shown switched off: hooks, fsmonitor, the
// untracked cache, external diff and textconv drivers, the system and global config, the
// workspace's .gitattributes, and any .gitignore rule written after the baseline. The workspace
// still gets a .git of its own, a copy of the baseline, for the agent to use; evalgate never
// reads it, so nothing the agent does there — config, hooks, commits — reaches the diff.
//
// The suite's workspace.repos are cloned once per suite with the same hardening (no hooks,
// fsmonitor, system or global config; no transport that runs a program; `--` before every URL
// and validated refs), and copied into each test's workspace with their .git; evalgate never
// runs git in a repository an agent has touched: a reset restores the files from its own
// baseline and each repository's .git from the copy taken at setup.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/proc"
)

// errNoGit is returned when git is not installed: diffs cannot be taken without it.
var errNoGit = errors.New("git is required for workspace diffs; install git")

// Workspace is one prepared directory and evalgate's baseline repository for it.
type Workspace struct {
	dir string
	// id is dir as created: a workspace replaced by another directory or a link is refused.
	id os.FileInfo
	// home is evalgate's private directory for the repository (home/repo), outside dir.
	home string
	// base is the baseline commit; diffs are taken against it, whatever the refs say.
	base string
	// ignore is the workspace's .gitignore rules at baseline time, as one exclude file.
	ignore []byte
	// inPlace marks a static workspace: the user's directory, never mirrored into or removed.
	inPlace bool
	// owner is who the copy is handed to once evalgate has written it (nil = evalgate).
	owner *proc.User
}

// prepare copies template into a new directory under parent ("" = the system temp dir),
// commits it as the baseline and hands the copy to owner (nil = evalgate). Nested .git
// directories in the template are not copied: a template is content, and its repositories'
// internals are not the agent's starting point.
func prepare(ctx context.Context, parent, template string, owner *proc.User) (*Workspace, error) {
	return create(ctx, parent, owner, func(dir string) error {
		if template == "" {
			return nil
		}
		if err := copyTree(template, dir, false); err != nil {
			return fmt.Errorf("workspace: copy %s: %w", template, err)
		}
		return nil
	})
}

// create makes a new directory under parent, has fill put the starting files in it, commits
// it as the baseline and hands it to owner.
func create(ctx context.Context, parent string, owner *proc.User, fill func(dir string) error) (*Workspace, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errNoGit
	}
	dir, err := os.MkdirTemp(parent, "evalgate-ws-")
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if err := fill(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	w, err := start(ctx, parent, dir, false, owner)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return w, nil
}

// start makes evalgate's repository for dir and commits dir as the baseline. An inPlace
// workspace (a static one: the user's directory) gets no repository of the agent's at .git —
// one there is the user's — and is never removed.
func start(ctx context.Context, parent, dir string, inPlace bool, owner *proc.User) (*Workspace, error) {
	home, err := os.MkdirTemp(parent, "evalgate-git-")
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	w := &Workspace{dir: dir, home: home, inPlace: inPlace, owner: owner}
	fail := func(err error) (*Workspace, error) {
		os.RemoveAll(home)
		return nil, err
	}
	if w.id, err = os.Lstat(dir); err != nil {
		return fail(fmt.Errorf("workspace: %w", err))
	}
	if err := w.initRepo(); err != nil {
		return fail(fmt.Errorf("workspace baseline: %w", err))
	}
	if err := w.baseline(ctx); err != nil {
		return fail(err)
	}
	return w, nil
}

// open takes the existing directory dir as a workspace in place (a static workspace).
func open(ctx context.Context, parent, dir string) (*Workspace, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errNoGit
	}
	// The workspace's identity is the directory, not a link to it.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return start(ctx, parent, real, true, nil)
}

// baseline commits the directory as it is now: Diff reports changes made after this point.
// Calling it again moves the baseline, which is how setup hooks and earlier tests on a shared
// workspace are kept out of a test's diff. The .gitignore rules in force now are the ones the
// diff honours until the next baseline, and the agent's .git is replaced by a fresh copy.
func (w *Workspace) baseline(ctx context.Context) error {
	if err := w.check(); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	ignore, err := ignoreRules(w.dir)
	if err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	w.ignore = ignore
	// Nothing kept from before is trusted: the index is rebuilt from the files alone.
	if err := w.reset(); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	if err := w.addAll(ctx); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	commit, err := w.commit(ctx)
	if err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	w.base = commit
	if w.inPlace {
		return nil
	}
	if err := w.mirror(); err != nil {
		return fmt.Errorf("workspace baseline: agent repository: %w", err)
	}
	if err := w.own(); err != nil {
		return fmt.Errorf("workspace baseline: %w", err)
	}
	return nil
}

// own hands the copy (its agent repository included) to the user commands run as. A static
// workspace is the user's directory and keeps its owner.
func (w *Workspace) own() error {
	if w.inPlace {
		return nil
	}
	return w.owner.Own(w.dir)
}

// commit records the index as a commit on top of the previous baseline and returns its id.
// Plumbing, not `git commit`: there is no hook to run.
func (w *Workspace) commit(ctx context.Context) (string, error) {
	tree, err := w.git(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", strings.TrimSpace(tree), "-m", "evalgate-baseline"}
	if w.base != "" {
		args = append(args, "-p", w.base)
	}
	commit, err := w.git(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	commit = strings.TrimSpace(commit)
	// The ref is written, not updated through git: the repository is evalgate's alone, and the
	// ref only tells the agent's copy where HEAD is (diffs use w.base).
	if err := os.WriteFile(filepath.Join(w.gitDir(), "refs", "heads", "main"), []byte(commit+"\n"), 0o644); err != nil {
		return "", err
	}
	return commit, nil
}

// Dir is the workspace directory.
func (w *Workspace) Dir() string { return w.dir }

// Diff is everything the agent changed since the baseline, as a unified diff ("" = nothing).
func (w *Workspace) Diff(ctx context.Context) (string, error) {
	if err := w.check(); err != nil {
		return "", err
	}
	// Only the baseline's commit id, held here, is trusted: the repository's objects must hash
	// to it, and the index is rebuilt from its tree, so that a process that found the
	// repository while the agent ran (skip-worktree bits, a forged tree) cannot hide a change.
	if err := w.reset(); err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	if _, err := w.git(ctx, nil, "fsck", "--no-dangling", "--no-reflogs", "--no-progress"); err != nil {
		return "", fmt.Errorf("workspace diff: evalgate's baseline repository was altered: %w", err)
	}
	if _, err := w.git(ctx, nil, "read-tree", w.base); err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	if err := w.addAll(ctx); err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	out, err := w.git(ctx, nil, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "-M",
		"--src-prefix=a/", "--dst-prefix=b/", w.base, "--")
	if err != nil {
		return "", fmt.Errorf("workspace diff: %w", err)
	}
	return strings.TrimRight(out, "\n"), nil
}

// Close removes evalgate's repository, and the workspace unless keep is set or it is a static
// one; it returns the kept path.
func (w *Workspace) Close(keep bool) (string, error) {
	err := os.RemoveAll(w.home)
	if keep || w.inPlace {
		// An agent that deleted (or replaced) its workspace leaves nothing to inspect: do not
		// point at it.
		if !keep || w.check() != nil {
			return "", err
		}
		return w.dir, err
	}
	return "", errors.Join(err, os.RemoveAll(w.dir))
}

// check refuses a workspace that is gone or was replaced, by a link to elsewhere say.
func (w *Workspace) check() error {
	fi, err := os.Lstat(w.dir)
	if err != nil {
		return fmt.Errorf("workspace %s is gone: %w", w.dir, err)
	}
	// Lstat: a link is refused whatever it points at (and may have reused the inode number).
	if !fi.IsDir() || !os.SameFile(fi, w.id) {
		return fmt.Errorf("workspace %s was replaced", w.dir)
	}
	return nil
}

// copyTree copies src into dst: regular files with their modes, symlinks as symlinks (never
// followed, so a template cannot pull in files from outside itself), and .git directories
// only when keepGit is set.
func copyTree(src, dst string, keepGit bool) error {
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
		case d.IsDir() && d.Name() == ".git" && path != src && !keepGit:
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

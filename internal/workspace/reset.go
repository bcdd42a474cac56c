package workspace

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// snapshot is a state of the workspace a reset returns to: a baseline commit and the
// .gitignore rules in force when it was taken.
type snapshot struct {
	commit string
	ignore []byte
}

// current is the workspace's baseline as a snapshot.
func (w *Workspace) current() snapshot { return snapshot{commit: w.base, ignore: w.ignore} }

// restore puts the workspace's files back as they were at s, as `git reset --hard` and
// `git clean -d` would in a repository whose HEAD is s: changed and deleted files are
// written again, new files are removed — except, unless strict (`clean -x`), those s's
// .gitignore rules ignore — and so are directories left empty. Nested repositories' files are
// restored like any others (see setAside); their .git directories are not touched. Files are
// removed through an os.Root, so a link the agent left cannot lead the removal outside the
// workspace, and git refuses to write through one.
func (w *Workspace) restore(ctx context.Context, s snapshot, strict bool) error {
	if err := w.check(); err != nil {
		return fmt.Errorf("workspace reset: %w", err)
	}
	if err := w.reset(); err != nil {
		return fmt.Errorf("workspace reset: %w", err)
	}
	exclude := filepath.Join(w.home, "reset-exclude")
	if err := os.WriteFile(exclude, s.ignore, 0o644); err != nil {
		return fmt.Errorf("workspace reset: %w", err)
	}
	err := w.setAside(func(hidden string) error {
		if _, err := w.git(ctx, nil, "read-tree", s.commit); err != nil {
			return err
		}
		// Set-aside repositories are not listed at all (their internals are many files).
		args := []string{"ls-files", "-z", "--others", "--exclude=" + hidden}
		if !strict {
			args = append(args, "--exclude-from="+exclude)
		}
		out, err := w.git(ctx, nil, args...)
		if err != nil {
			return err
		}
		if err := w.remove(paths(out, hidden)); err != nil {
			return err
		}
		if err := pruneEmpty(w.dir, w.dir, hidden); err != nil {
			return err
		}
		// The index read from s has no stat data, so every file is compared by content:
		// --modified lists the changed and the deleted ones.
		changed, err := w.git(ctx, nil, "ls-files", "-z", "--modified")
		if err != nil || changed == "" {
			return err
		}
		_, err = w.git(ctx, strings.NewReader(changed), "checkout-index", "--force", "-z", "--stdin")
		return err
	})
	if err != nil {
		return fmt.Errorf("workspace reset: %w", err)
	}
	return nil
}

// remove deletes workspace-relative slash paths through an os.Root.
func (w *Workspace) remove(rels []string) error {
	if len(rels) == 0 {
		return nil
	}
	root, err := os.OpenRoot(w.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range rels {
		if err := root.RemoveAll(filepath.FromSlash(p)); err != nil {
			return err
		}
	}
	return nil
}

// pruneEmpty removes the empty directories under dir (not dir itself, nor anything in a .git
// directory or a set-aside one).
func pruneEmpty(top, dir, hidden string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".git" || e.Name() == hidden {
			continue
		}
		if err := pruneEmpty(top, filepath.Join(dir, e.Name()), hidden); err != nil {
			return err
		}
	}
	if dir == top {
		return nil
	}
	if rest, err := os.ReadDir(dir); err == nil && len(rest) == 0 {
		return os.Remove(dir)
	}
	return nil
}

// restoreGit replaces the .git directory of the repository at rel (slash-separated) with a
// copy of src, through an os.Root: whatever the agent did to that repository — commits,
// branches, config, hooks — is gone, and it is back at its checkout.
func (w *Workspace) restoreGit(rel, src string) error {
	root, err := os.OpenRoot(w.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	dst := filepath.Join(filepath.FromSlash(rel), ".git")
	if err := root.RemoveAll(dst); err != nil {
		return err
	}
	return copyInto(root, dst, src)
}

// copyInto copies src (a file or a directory tree; only directories and regular files) to
// dst inside root.
func copyInto(root *os.Root, dst, src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return root.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := root.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

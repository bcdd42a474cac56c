package workspace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// addAll stages every file in the workspace into evalgate's index: changes to tracked files,
// and untracked files unless the baseline's .gitignore rules exclude them — whatever
// .gitignore files say now. Files of repositories nested in the workspace (a workspace repo, an
// agent that clones a dependency, a hook that checks out a fixture) are staged too (see
// setAside).
func (w *Workspace) addAll(ctx context.Context) error {
	return w.setAside(func(hidden string) error {
		if _, err := w.git(ctx, nil, bulkAdd("--update")...); err != nil {
			return err
		}
		out, err := w.git(ctx, nil, "ls-files", "-z", "--others", "--exclude-from="+w.excludeFile())
		if err != nil {
			return err
		}
		add := paths(out, hidden)
		if len(add) == 0 {
			return nil
		}
		_, err = w.git(ctx, strings.NewReader(strings.Join(add, "\x00")), bulkAdd("--force", "--pathspec-from-file=-", "--pathspec-file-nul")...)
		return err
	})
}

// bulkAdd is `git add` writing the blobs it stores into one pack file instead of a loose object
// (a file and maybe a directory) each: a template of a thousand files costs two files in
// evalgate's repository and in the agent's copy of it, not a thousand. It is set for the
// add commands alone: at diff time the threshold would make every file binary.
func bulkAdd(args ...string) []string {
	return append([]string{"-c", "core.bigFileThreshold=1", "add"}, args...)
}

// setAside runs fn with every nested .git entry of the workspace renamed to hidden, a name
// chosen now (an agent cannot have planted it), and puts them back after. git would record a
// nested repository as a single gitlink and never look inside it; set aside, its files are
// plain content.
func (w *Workspace) setAside(fn func(hidden string) error) (err error) {
	hidden, err := hiddenName()
	if err != nil {
		return err
	}
	var moved []string
	top := filepath.Join(w.dir, ".git")
	walkErr := filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file the agent removed while we looked
		}
		if d.Name() != ".git" {
			return nil
		}
		if p == top {
			return filepath.SkipDir // the agent's own repository: git never stages .git
		}
		if err := os.Rename(p, filepath.Join(filepath.Dir(p), hidden)); err != nil {
			return fmt.Errorf("set aside nested repository %s: %w", p, err)
		}
		moved = append(moved, p)
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	defer func() {
		for _, p := range moved {
			if rerr := os.Rename(filepath.Join(filepath.Dir(p), hidden), p); rerr != nil {
				err = errors.Join(err, fmt.Errorf("restore nested repository %s: %w", p, rerr))
			}
		}
	}()
	if walkErr != nil {
		return walkErr
	}
	return fn(hidden)
}

// paths splits git's -z output, leaving out anything inside a set-aside repository.
func paths(out, hidden string) []string {
	var ps []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" && !hasComponent(p, hidden) {
			ps = append(ps, p)
		}
	}
	return ps
}

// hiddenName is a fresh name for set-aside .git entries.
func hiddenName() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return ".git.evalgate-" + hex.EncodeToString(b), nil
}

// hasComponent reports whether the slash-separated path p has an element named name.
func hasComponent(p, name string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == name {
			return true
		}
	}
	return false
}

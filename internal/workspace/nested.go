package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// hiddenGit is what a nested repository's .git is renamed to while the workspace is staged.
const hiddenGit = ".git.evalgate-nested"

// addAll stages every file in the workspace, including the files of repositories nested in
// it (an agent that clones a dependency, a hook that checks out a fixture). git would record
// a nested repository as a single gitlink and its changes would never reach the diff, so its
// .git is set aside while staging and put back after.
func (w *Workspace) addAll(ctx context.Context) (err error) {
	var moved []string
	walkErr := filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file the agent removed while we looked
		}
		if d.Name() != ".git" || p == filepath.Join(w.dir, ".git") {
			return nil
		}
		if err := os.Rename(p, filepath.Join(filepath.Dir(p), hiddenGit)); err != nil {
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
			if rerr := os.Rename(filepath.Join(filepath.Dir(p), hiddenGit), p); rerr != nil {
				err = errors.Join(err, fmt.Errorf("restore nested repository %s: %w", p, rerr))
			}
		}
	}()
	if walkErr != nil {
		return walkErr
	}
	if err := w.exclude(); err != nil {
		return err
	}
	_, err = w.git(ctx, "add", "-A")
	return err
}

// exclude keeps the set-aside .git directories out of the index.
func (w *Workspace) exclude() error {
	p := filepath.Join(w.dir, ".git", "info", "exclude")
	b, _ := os.ReadFile(p)
	line := hiddenGit + "/\n"
	if strings.Contains("\n"+string(b), "\n"+line) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, line...), 0o644)
}

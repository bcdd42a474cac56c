package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Loaded is the outcome of discovering and loading eval files.
type Loaded struct {
	Files  []string
	Suites []*suite.Suite
	// failed are the files that could not be loaded; LoadErrors their suite results.
	failed     []string
	LoadErrors []*result.SuiteResult
	// Errors and Warnings count the diagnostics printed.
	Errors, Warnings int
}

// Search discovers the eval files under paths (default the current directory; a file named
// explicitly is loaded as it is) and loads each one, printing every diagnostic to the log. A
// file that cannot be loaded becomes a suite result with its error: other suites still run.
func (r *Runner) Search(paths []string) (*Loaded, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	d, err := suite.Search(paths, suite.DefaultPatterns)
	switch {
	case err != nil:
		return nil, fmt.Errorf("discover eval files: %w", err)
	case len(d.Files) == 0:
		return nil, errors.New(d.Explain())
	}
	return r.loadFiles(d.Files), nil
}

// loadFiles loads eval files, printing every diagnostic to the log.
func (r *Runner) loadFiles(files []string) *Loaded {
	c := r.cfg
	l := &Loaded{Files: files}
	for _, f := range files {
		s, diags := suite.Load(f, suite.LoadOptions{Root: c.Root, Getenv: c.Getenv, Trials: c.Trials, Env: c.Env})
		var errs []string
		for _, d := range diags {
			fmt.Fprintln(c.Log, d.String())
			if d.Severity == suite.Error {
				l.Errors++
				errs = append(errs, d.String())
			} else {
				l.Warnings++
			}
		}
		if s == nil {
			if len(errs) == 0 {
				errs = append(errs, f+": could not be loaded")
			}
			l.LoadErrors = append(l.LoadErrors, &result.SuiteResult{Name: suiteName(f), Path: rel(c.Root, f), Error: strings.Join(errs, "\n")})
			l.failed = append(l.failed, f)
			continue
		}
		l.Suites = append(l.Suites, s)
	}
	return l
}

// suiteName is AgentV's default suite name: the file name without .eval.yaml / .yaml.
func suiteName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".eval.yaml", ".eval.yml", ".yaml", ".yml", ".jsonl"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return base
}

// rel is path as messages show it (fsroot.Display).
func rel(root, path string) string { return fsroot.Display(root, path) }

// Root is the repository root, absolute: root when it is set (--root), else the git work
// tree holding the first path (default the current directory), else the current directory.
// file:// references may not leave it, and report paths are relative to it.
func Root(ctx context.Context, root string, paths []string) (string, error) {
	if root == "" {
		first := "."
		if len(paths) > 0 {
			first = paths[0]
		}
		root = workTree(ctx, first)
	}
	return filepath.Abs(root)
}

// workTree is the git work tree holding path, else the current directory.
func workTree(ctx context.Context, path string) string {
	dir := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err == nil {
		if root := strings.TrimSpace(string(out)); root != "" {
			return root
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// HeadCommit is the commit checked out at root. The checkout may belong to another user (the
// runner's, with evalgate root in a container): it is the repository evalgate grades, so
// git's ownership check is waived for it alone.
func HeadCommit(ctx context.Context, root string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-c", "safe.directory="+root, "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD in %s: %w", root, err)
	}
	return strings.TrimSpace(string(out)), nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// loaded is the outcome of discovering and loading eval files.
type loaded struct {
	files      []string
	suites     []*suite.Suite
	failed     []string // the files that could not be loaded
	loadErrors []*result.SuiteResult
	errors     int
	warnings   int
}

// loadSuites discovers eval files under paths and loads each one, printing every diagnostic to
// w. A file that cannot be loaded becomes a suite result with its error: other suites still run.
// trials is the run's --trials override (0 = none); policy says which variables ${{ VAR }}
// may read.
func loadSuites(paths []string, root string, getenv func(string) string, trials int, policy *suite.EnvPolicy, w io.Writer) (*loaded, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	d, err := suite.Search(paths, suite.DefaultPatterns)
	switch {
	case err != nil:
		return nil, usageErr("discover eval files: %w", err)
	case len(d.Files) == 0:
		return nil, usageErr("%s", d.Explain())
	}
	return loadFiles(d.Files, root, getenv, trials, policy, w)
}

// loadFiles loads eval files, printing every diagnostic to w; policy says which variables
// ${{ VAR }} may read.
func loadFiles(files []string, root string, getenv func(string) string, trials int, policy *suite.EnvPolicy, w io.Writer) (*loaded, error) {
	l := &loaded{files: files}
	for _, f := range files {
		s, diags := suite.Load(f, suite.LoadOptions{Root: root, Getenv: getenv, Trials: trials, Env: policy})
		var errs []string
		for _, d := range diags {
			fmt.Fprintln(w, d.String())
			if d.Severity == suite.Error {
				l.errors++
				errs = append(errs, d.String())
			} else {
				l.warnings++
			}
		}
		if s == nil {
			if len(errs) == 0 {
				errs = append(errs, f+": could not be loaded")
			}
			l.loadErrors = append(l.loadErrors, &result.SuiteResult{Name: suiteName(f), Path: rel(root, f), Error: strings.Join(errs, "\n")})
			l.failed = append(l.failed, f)
			continue
		}
		l.suites = append(l.suites, s)
	}
	return l, nil
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

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// repoRoot is the git work tree holding path, else the current directory: file:// references
// may not leave it, and report paths are relative to it.
func repoRoot(ctx context.Context, path string) string {
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

// headCommit is the commit checked out at root. The checkout may belong to another user (the
// runner's, with evalgate root in a container): it is the repository evalgate grades, so
// git's ownership check is waived for it alone.
func headCommit(ctx context.Context, root string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-c", "safe.directory="+root, "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD in %s: %w", root, err)
	}
	return strings.TrimSpace(string(out)), nil
}

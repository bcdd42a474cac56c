package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/workspace/workspacetest"
)

// fixture is a bare repository with three commits on main and a branch "feature".
func fixture(t *testing.T) (*workspacetest.Repo, string) {
	t.Helper()
	r := workspacetest.BareRepo(t,
		map[string]string{"README.md": "v1\n", "a/x.txt": "x1\n", "b/y.txt": "y1\n"},
		map[string]string{"README.md": "v2\n", "a/x.txt": "x2\n"},
		map[string]string{"README.md": "v3\n", ".gitignore": "build/\n"},
	)
	feature := r.Branch(t, "feature", map[string]string{"README.md": "feature\n"})
	return r, feature
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestCloneRepo(t *testing.T) {
	t.Parallel()
	origin, feature := fixture(t)
	tests := []struct {
		name   string
		repo   suite.Repo
		sha    string            // the detached HEAD wanted
		files  map[string]string // file → content ("" = absent)
		errSub string
	}{
		{name: "default branch", repo: suite.Repo{Path: "r"}, sha: origin.Commits[2],
			files: map[string]string{"README.md": "v3\n", "a/x.txt": "x2\n", "b/y.txt": "y1\n"}},
		{name: "pinned commit", repo: suite.Repo{Path: "deep/r", Commit: origin.Commits[0]}, sha: origin.Commits[0],
			files: map[string]string{"README.md": "v1\n", "a/x.txt": "x1\n", ".gitignore": ""}},
		{name: "branch only on the remote", repo: suite.Repo{Path: "r", Commit: "feature"}, sha: feature,
			files: map[string]string{"README.md": "feature\n"}},
		{name: "ancestor of a branch", repo: suite.Repo{Path: "r", Commit: "main", Ancestor: 2}, sha: origin.Commits[0],
			files: map[string]string{"README.md": "v1\n"}},
		{name: "sparse cone", repo: suite.Repo{Path: "r", Sparse: []string{"a"}}, sha: origin.Commits[2],
			files: map[string]string{"README.md": "v3\n", "a/x.txt": "x2\n", "b/y.txt": ""}},
		{name: "file URL", repo: suite.Repo{Path: "r", URL: "file://" + origin.Dir, Commit: origin.Commits[1]}, sha: origin.Commits[1],
			files: map[string]string{"README.md": "v2\n"}},
		{name: "unknown commit", repo: suite.Repo{Path: "r", Commit: "nope"}, errSub: `cannot resolve "nope" to a commit`},
		{name: "history too short", repo: suite.Repo{Path: "r", Ancestor: 9}, errSub: "cannot resolve ancestor 9"},
		{name: "ref read as an option", repo: suite.Repo{Path: "r", Commit: "--upload-pack=touch MARKER"}, errSub: "is not a commit, branch or tag name"},
		{name: "URL read as an option", repo: suite.Repo{Path: "r", URL: "--upload-pack=touch MARKER"}, errSub: "is not a git URL"},
		{name: "ext transport", repo: suite.Repo{Path: "r", URL: "ext::sh -c touch% MARKER"}, errSub: "git clone"},
		{name: "path outside the workspace", repo: suite.Repo{Path: "../r"}, errSub: "must be a directory inside the workspace"},
		{name: "missing repository", repo: suite.Repo{Path: "r", URL: "/nonexistent/evalgate.git"}, errSub: "git clone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.repo
			if r.URL == "" {
				r.URL = origin.Dir
			}
			r.Pos = suite.Pos{File: "evals/x.yaml", Line: 7, Col: 9}
			dir := t.TempDir()
			// A URL or ref that git ran as a command would leave this file.
			marker := filepath.Join(t.TempDir(), "pwned")
			r.URL = strings.ReplaceAll(r.URL, "MARKER", marker)
			r.Commit = strings.ReplaceAll(r.Commit, "MARKER", marker)
			err := cloneRepo(t.Context(), t.TempDir(), dir, &r)
			if _, serr := os.Stat(marker); serr == nil {
				t.Fatal("git ran a command from the repo's URL or ref")
			}
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) || !strings.Contains(err.Error(), "(evals/x.yaml:7)") {
					t.Fatalf("err = %v, want %q at evals/x.yaml:7", err, tc.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			clone := filepath.Join(dir, filepath.FromSlash(r.Path))
			if head := workspacetest.Git(t, clone, "rev-parse", "HEAD"); head != tc.sha {
				t.Errorf("HEAD = %s, want %s", head, tc.sha)
			}
			if st := workspacetest.Git(t, clone, "status", "--porcelain"); st != "" {
				t.Errorf("clone is not clean:\n%s", st)
			}
			for name, want := range tc.files {
				got := read(t, filepath.Join(clone, filepath.FromSlash(name)))
				if want == "" && !strings.HasPrefix(got, "<") || want != "" && got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if hooks, _ := os.ReadDir(filepath.Join(clone, ".git", "hooks")); len(hooks) != 0 {
				t.Errorf("the clone has hooks: %v", hooks)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://x-access-token:ghp_secret@github.com/o/r.git": "https://***@github.com/o/r.git",
		"https://github.com/o/r.git":                           "https://github.com/o/r.git",
		"/srv/repos/r.git":                                     "/srv/repos/r.git",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
	r := &suite.Repo{Path: "r", URL: "https://tok@example.invalid/r.git"}
	if err := repoErr(r, os.ErrNotExist); strings.Contains(err.Error(), "tok@") {
		t.Errorf("credentials in %v", err)
	}
}

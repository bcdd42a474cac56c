package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/workspace/workspacetest"
)

// repoTemplate is a template with an ignore rule of its own.
func repoTemplate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"notes.txt": "original\n", "same.txt": "aaaa\n", ".gitignore": "cache/\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// messUp does what a careless agent does to a workspace holding the fixture at r: edits,
// deletes, new files (some git-ignored), a commit on a new branch of the repo, and a link to
// outside where a directory was.
func messUp(t *testing.T, dir, outside string) {
	t.Helper()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "scribbled\n")
	// An edit that keeps the size and the modification time: only the content tells.
	stamp, err := os.Stat(filepath.Join(dir, "same.txt"))
	if err != nil {
		t.Fatal(err)
	}
	write("same.txt", "bbbb\n")
	if err := os.Chtimes(filepath.Join(dir, "same.txt"), stamp.ModTime(), stamp.ModTime()); err != nil {
		t.Fatal(err)
	}
	write("new.txt", "new\n")
	write("newdir/deep/file.txt", "new\n")
	write("cache/x", "ignored by the template\n")
	write("r/build/out.bin", "ignored by the repo\n")
	write("r/README.md", "agent's change\n")
	repo := filepath.Join(dir, "r")
	workspacetest.Git(t, repo, "checkout", "-q", "-b", "agent")
	workspacetest.Git(t, repo, "commit", "-q", "-am", "agent commit")
	if err := os.Remove(filepath.Join(repo, "a", "x.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "b")); err != nil {
		t.Fatal(err)
	}
}

func TestResetRestoresSharedWorkspace(t *testing.T) {
	t.Parallel()
	origin, _ := fixture(t)
	tests := []struct {
		stage  string
		strict bool
	}{
		{"after_each", false}, {"after_each", true}, {"before_each", false}, {"before_each", true},
	}
	for _, tc := range tests {
		t.Run(tc.stage+map[bool]string{false: "/fast", true: "/strict"}[tc.strict], func(t *testing.T) {
			t.Parallel()
			reset := &suite.Hook{Reset: map[bool]string{false: "fast", true: "strict"}[tc.strict]}
			spec := &suite.Workspace{Template: repoTemplate(t), Isolation: "shared",
				Repos: []*suite.Repo{{Path: "r", URL: origin.Dir, Commit: origin.Commits[2]}}}
			if tc.stage == "after_each" {
				spec.Hooks.AfterEach = reset
			} else {
				spec.Hooks.BeforeEach = reset
			}
			outside := t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "precious"), []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m := NewManager(spec, ManagerOptions{Parent: t.TempDir(), RunID: "r"})
			defer m.Close(t.Context())
			ctx := t.Context()

			first, err := m.Acquire(ctx, "one", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			messUp(t, first.Dir(), outside)
			if _, err := first.Close(false); err != nil {
				t.Fatal(err)
			}
			second, err := m.Acquire(ctx, "two", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer second.Close(false)
			dir := second.Dir()
			for rel, want := range map[string]string{
				"notes.txt": "original\n", "same.txt": "aaaa\n", "r/README.md": "v3\n", "r/a/x.txt": "x2\n", "r/b/y.txt": "y1\n",
			} {
				if got := read(t, filepath.Join(dir, rel)); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
			for rel, gone := range map[string]bool{
				"new.txt": true, "newdir": true, "cache/x": tc.strict, "r/build/out.bin": tc.strict,
			} {
				_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
				if gone != os.IsNotExist(err) {
					t.Errorf("%s: exists=%v after a %s reset", rel, err == nil, reset.Reset)
				}
			}
			repo := filepath.Join(dir, "r")
			if head := workspacetest.Git(t, repo, "rev-parse", "HEAD"); head != origin.Commits[2] {
				t.Errorf("repo HEAD = %s, want the pinned %s", head, origin.Commits[2])
			}
			if b := workspacetest.Git(t, repo, "branch", "--list", "agent"); b != "" {
				t.Errorf("the agent's branch survived the reset: %q", b)
			}
			if st := workspacetest.Git(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("repo not clean after the reset:\n%s", st)
			}
			if got := read(t, filepath.Join(outside, "precious")); got != "keep\n" {
				t.Errorf("the reset reached outside the workspace: precious = %q", got)
			}
			if d, err := second.Diff(ctx); err != nil || d != "" {
				t.Errorf("second test's diff = %q, %v: the reset is not its change", d, err)
			}
		})
	}
}

func TestSharedWithoutResetKeepsChanges(t *testing.T) {
	t.Parallel()
	origin, _ := fixture(t)
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("disabled=%v", disabled), func(t *testing.T) {
			t.Parallel()
			spec := &suite.Workspace{Isolation: "shared", Repos: []*suite.Repo{{Path: "r", URL: origin.Dir}}}
			if disabled {
				// hooks.enabled: false turns the reset off too.
				spec.Hooks = suite.WorkspaceHooks{Disabled: true, AfterEach: &suite.Hook{Reset: "strict"}}
			}
			m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
			first, err := m.Acquire(t.Context(), "one", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(first.Dir(), "r", "README.md"), []byte("changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			first.Close(false)
			second, err := m.Acquire(t.Context(), "two", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, filepath.Join(second.Dir(), "r", "README.md")); got != "changed\n" {
				t.Errorf("disabled=%v: README.md = %q: nothing should have reset it", disabled, got)
			}
			second.Close(false)
			if err := m.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPerTestReposAreClonedOnce(t *testing.T) {
	t.Parallel()
	origin, _ := fixture(t)
	log := filepath.Join(t.TempDir(), "after_each.log")
	spec := &suite.Workspace{Template: repoTemplate(t), Isolation: "per_test",
		Repos: []*suite.Repo{{Path: "src/r", URL: origin.Dir, Commit: origin.Commits[0]}},
		Hooks: suite.WorkspaceHooks{AfterEach: &suite.Hook{Reset: "fast"}}}
	m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
	defer m.Close(t.Context())
	ctx := t.Context()

	first, err := m.Acquire(ctx, "one", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The origin is gone: a second clone would fail.
	if err := os.RemoveAll(origin.Dir); err != nil {
		t.Fatal(err)
	}
	second, err := m.Acquire(ctx, "two", nil, nil)
	if err != nil {
		t.Fatalf("the second test cloned again: %v", err)
	}
	for _, l := range []*Lease{first, second} {
		repo := filepath.Join(l.Dir(), "src", "r")
		if head := workspacetest.Git(t, repo, "rev-parse", "HEAD"); head != origin.Commits[0] {
			t.Errorf("HEAD = %s, want %s", head, origin.Commits[0])
		}
		if d, err := l.Diff(ctx); err != nil || d != "" {
			t.Errorf("fresh workspace diff = %q, %v", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(first.Dir(), "src", "r", "a", "x.txt"), []byte("fixed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := first.Diff(ctx)
	if err != nil || !strings.Contains(d, "+++ b/src/r/a/x.txt") || strings.Count(d, "+++ ") != 1 || !strings.Contains(d, "+fixed") {
		t.Errorf("diff = %q, %v; want only the agent's edit of src/r/a/x.txt", d, err)
	}
	if read(t, filepath.Join(second.Dir(), "src", "r", "a", "x.txt")) != "x1\n" {
		t.Error("tests share a per_test copy")
	}
	// after_each reset with no command: the kept workspace still shows what the agent did.
	kept, err := first.Close(true)
	if err != nil || kept == "" {
		t.Fatalf("Close(true) = %q, %v", kept, err)
	}
	defer os.RemoveAll(kept)
	if got := read(t, filepath.Join(kept, "src", "r", "a", "x.txt")); got != "fixed\n" {
		t.Errorf("kept workspace lost the agent's change: %q", got)
	}
	second.Close(false)

	// With an after_each command, the reset is done first, for the command to see.
	spec2 := &suite.Workspace{Repos: []*suite.Repo{{Path: "r", URL: fixtureDir(t)}},
		Hooks: suite.WorkspaceHooks{AfterEach: &suite.Hook{Reset: "fast",
			Command: []string{"sh", "-c", "cat \"$AGENTV_WORKSPACE_PATH/r/README.md\" > " + q(log)}}}}
	m2 := NewManager(spec2, ManagerOptions{Parent: t.TempDir()})
	defer m2.Close(t.Context())
	l, err := m2.Acquire(ctx, "one", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Dir(), "r", "README.md"), []byte("agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.Close(false)
	if got := read(t, log); got != "v3\n" {
		t.Errorf("after_each command saw README.md = %q, want the reset v3", got)
	}
}

// fixtureDir is a fresh fixture's bare repository.
func fixtureDir(t *testing.T) string {
	t.Helper()
	r, _ := fixture(t)
	return r.Dir
}

func TestStaticWorkspace(t *testing.T) {
	t.Parallel()
	origin, _ := fixture(t)
	ctx := t.Context()
	run := func(spec *suite.Workspace) (diff string) {
		t.Helper()
		m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
		l, err := m.Acquire(ctx, "one", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if l.Dir() != spec.Path {
			t.Errorf("static workspace runs in %s, want %s", l.Dir(), spec.Path)
		}
		if err := os.WriteFile(filepath.Join(l.Dir(), "agent.txt"), []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if diff, err = l.Diff(ctx); err != nil {
			t.Fatal(err)
		}
		if kept, err := l.Close(false); err != nil || kept != "" {
			t.Errorf("Close = %q, %v", kept, err)
		}
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		return diff
	}

	// A missing directory is made from the template and the repos, and left in place.
	fresh := filepath.Join(t.TempDir(), "ws")
	spec := &suite.Workspace{Template: repoTemplate(t), Path: fresh, Isolation: "shared",
		Repos: []*suite.Repo{{Path: "r", URL: origin.Dir}}}
	if d := run(spec); !strings.Contains(d, "+++ b/agent.txt") || strings.Count(d, "+++ ") != 1 {
		t.Errorf("diff = %q", d)
	}
	for _, rel := range []string{"notes.txt", "agent.txt", "r/README.md", "r/.git/HEAD"} {
		if _, err := os.Stat(filepath.Join(fresh, rel)); err != nil {
			t.Errorf("static workspace lost %s: %v", rel, err)
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, ".git")); !os.IsNotExist(err) {
		t.Errorf("evalgate wrote a repository into the user's directory: %v", err)
	}

	// An existing directory is used as it is: its own .git is the user's, and only missing
	// repos are cloned.
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, ".git", "marker"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec = &suite.Workspace{Template: repoTemplate(t), Path: user, Isolation: "shared",
		Repos: []*suite.Repo{{Path: "r", URL: origin.Dir}}}
	run(spec)
	if entries, _ := os.ReadDir(filepath.Join(user, ".git")); len(entries) != 1 || read(t, filepath.Join(user, ".git", "marker")) != "mine\n" {
		t.Errorf("the user's .git was changed: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(user, "notes.txt")); !os.IsNotExist(err) {
		t.Error("the template was copied into an existing static workspace")
	}
	if _, err := os.Stat(filepath.Join(user, "r", "README.md")); err != nil {
		t.Errorf("missing repo not cloned: %v", err)
	}
}

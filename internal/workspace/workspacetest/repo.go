// Package workspacetest makes local git repositories for tests of workspace repos: bare
// repositories in a test's temporary directory, cloned by path or file:// URL, never over the
// network.
package workspacetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a bare repository and the working copy its commits are made in.
type Repo struct {
	// Dir is the bare repository: what a workspace clones.
	Dir string
	// Commits are main's commits, oldest first.
	Commits []string
	work    string
}

// BareRepo makes a bare repository whose main branch has one commit per element of commits:
// the files it writes (content "" deletes the file).
func BareRepo(t testing.TB, commits ...map[string]string) *Repo {
	t.Helper()
	root := t.TempDir()
	r := &Repo{Dir: filepath.Join(root, "origin.git"), work: filepath.Join(root, "work")}
	git(t, root, "init", "-q", "--bare", "--initial-branch=main", r.Dir)
	git(t, root, "init", "-q", "--initial-branch=main", r.work)
	for _, files := range commits {
		r.Commits = append(r.Commits, r.commit(t, files))
	}
	git(t, r.work, "push", "-q", r.Dir, "main")
	return r
}

// Branch commits files on top of main's last commit to a new branch of the bare repository,
// and returns the commit.
func (r *Repo) Branch(t testing.TB, name string, files map[string]string) string {
	t.Helper()
	git(t, r.work, "checkout", "-q", "-b", name, "main")
	sha := r.commit(t, files)
	git(t, r.work, "push", "-q", r.Dir, name)
	git(t, r.work, "checkout", "-q", "main")
	return sha
}

func (r *Repo) commit(t testing.TB, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(r.work, filepath.FromSlash(name))
		if body == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, r.work, "add", "-A")
	git(t, r.work, "commit", "-q", "--allow-empty", "-m", "commit")
	return Git(t, r.work, "rev-parse", "HEAD")
}

// Git runs git in dir without the user's or the system's configuration and returns its
// trimmed output; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@localhost",
		"-c", "commit.gpgSign=false", "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func git(t testing.TB, dir string, args ...string) { t.Helper(); Git(t, dir, args...) }

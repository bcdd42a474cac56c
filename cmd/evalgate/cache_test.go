package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/cache"
)

// TestCacheLivesOutsideTheCheckout runs the LLM suite twice with only HOME set: the replies
// are cached under ~/.cache/evalgate, readable by other users, and the re-run makes no call.
func TestCacheLivesOutsideTheCheckout(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	home := t.TempDir()
	env := map[string]string{"FAKE_URL": srv.URL, "HOME": home}
	first := 0
	for i := range 2 {
		if code, _, stderr := runJSON(t, env, "testdata/llm/evals/clean.eval.yaml"); code != 0 || strings.Contains(stderr, "cache disabled") {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderr)
		}
		if i == 0 {
			first = srv.Count()
		}
	}
	if n := srv.Count() - first; n != 0 {
		t.Errorf("the re-run made %d calls, want 0", n)
	}
	dir := filepath.Join(home, ".cache", "evalgate")
	entries := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.Name() == cache.KeyFile {
			// The key is evalgate's alone.
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
			}
			return nil
		}
		if d.IsDir() && fi.Mode().Perm()&0o055 != 0o055 || !d.IsDir() && fi.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s: mode %v, not readable by other users", p, fi.Mode().Perm())
		}
		if !d.IsDir() {
			entries++
		}
		return nil
	})
	if err != nil || entries == 0 {
		t.Fatalf("no entries under %s (%v)", dir, err)
	}
	if _, err := os.Stat(filepath.Join("testdata", "llm", ".evalgate")); err == nil {
		t.Error("the run wrote a cache into the repository")
	}
}

// TestCacheInsideTheRepositoryIsRefused commits a forged judge reply where the old default
// cache was, points --cache-dir at it, and checks that it is never read.
func TestCacheInsideTheRepositoryIsRefused(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	repo := t.TempDir()
	if out, err := exec.Command("cp", "-r", "testdata/llm/.", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	env := map[string]string{"FAKE_URL": srv.URL, "HOME": t.TempDir()}
	// Fill a cache from an honest run, then plant it in the repository.
	outside := filepath.Join(t.TempDir(), "cache")
	code, _, stderr := invokeEnv(t, env, "run", "--root", repo, "--allow-env", "FAKE_URL", "--cache-dir", outside, filepath.Join(repo, "evals", "clean.eval.yaml"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	planted := filepath.Join(repo, ".evalgate", "cache")
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", outside+"/.", planted).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	before := srv.Count()
	code, _, stderr = invokeEnv(t, env, "run", "--root", repo, "--allow-env", "FAKE_URL", "--cache-dir", planted, filepath.Join(repo, "evals", "clean.eval.yaml"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "reply cache disabled") || !strings.Contains(stderr, "overlaps the repository") {
		t.Errorf("no warning saying why the cache is off:\n%s", stderr)
	}
	if srv.Count() == before {
		t.Error("the entries inside the repository were read: the run made no model call")
	}
}

func TestCacheNeedsAHome(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	code, _, stderr := runJSON(t, map[string]string{"FAKE_URL": srv.URL}, "testdata/llm/evals/clean.eval.yaml")
	if code != 0 || !strings.Contains(stderr, "reply cache disabled: neither XDG_CACHE_HOME nor HOME is set") {
		t.Errorf("exit %d; want a warning naming the variables:\n%s", code, stderr)
	}
}

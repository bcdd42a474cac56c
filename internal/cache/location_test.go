package cache_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalgate/evalgate/internal/cache"
)

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{"xdg wins", map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"}, "/x/cache/evalgate", false},
		{"home", map[string]string{"HOME": "/github/home"}, "/github/home/.cache/evalgate", false},
		{"relative xdg is ignored", map[string]string{"XDG_CACHE_HOME": "rel", "HOME": "/home/u"}, "/home/u/.cache/evalgate", false},
		{"nothing set", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := cache.DefaultDir(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("DefaultDir = %q, %v; want %q (error %t)", got, err, tt.want, tt.err)
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestCheckDirRefusesWhatTheRepositoryControls(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	tracked := filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(repo, "sub"), outside, filepath.Join(tracked, "cache", "ab")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "init", "-q")
	// Another repository whose cache directory has a committed (forged) entry.
	git(t, tracked, "init", "-q")
	if err := os.WriteFile(filepath.Join(tracked, "cache", "ab", "abcd.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, tracked, "add", "-A")
	git(t, tracked, "commit", "-qm", "forged")
	link := filepath.Join(outside, "link")
	if err := os.Symlink(filepath.Join(repo, "sub"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, repo string
		why             string // "" = accepted
	}{
		{"outside", filepath.Join(outside, "cache"), repo, ""},
		{"not created yet, outside", filepath.Join(outside, "a", "b"), repo, ""},
		{"inside the repository", filepath.Join(repo, ".evalgate", "cache"), repo, "overlaps the repository"},
		{"inside the git work tree around --root", filepath.Join(repo, "cache"), filepath.Join(repo, "sub"), "overlaps the repository"},
		{"holds the repository", base, repo, "overlaps the repository"},
		{"a link into the repository", filepath.Join(link, "cache"), repo, "overlaps the repository"},
		{"tracked by git", filepath.Join(tracked, "cache"), repo, "tracked by git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := cache.CheckDir(t.Context(), tt.dir, tt.repo)
			switch {
			case tt.why == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.why != "" && (err == nil || !strings.Contains(err.Error(), tt.why)):
				t.Fatalf("CheckDir = %v, want a refusal saying %q", err, tt.why)
			}
		})
	}
}

func TestEntriesAreReadableByOthersWhateverTheUmask(t *testing.T) { //nolint:paralleltest // the umask is the process's
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "a", "cache")
	s, err := cache.Open(dir, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := key(t, "perm")
	if err := s.Put(k, []byte(`{"text":"x"}`)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		filepath.Dir(dir): 0o755, dir: 0o755, filepath.Join(dir, k[:2]): 0o755, filepath.Join(dir, k[:2], k+".json"): 0o644,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}

func TestLinkedEntriesAreMisses(t *testing.T) {
	t.Parallel()
	s := open(t)
	k := key(t, "linked")
	// A forged entry outside the cache directory, linked in.
	forged := filepath.Join(t.TempDir(), "forged.json")
	other := open(t)
	if err := other.Put(k, []byte(`{"text":"forged"}`)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(other.Dir(), k[:2], k+".json"))
	if err := os.WriteFile(forged, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(key(t, "other"), []byte(`1`)); err != nil { // creates the directory
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir(), k[:2]), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(forged, filepath.Join(s.Dir(), k[:2], k+".json")); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(k); ok {
		t.Fatalf("an entry linked from outside the cache was read: %s", got)
	}
}

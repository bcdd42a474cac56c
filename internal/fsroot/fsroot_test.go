package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secret is the content of the file outside the repository: no read may return it.
const secret = "TOPSECRET-VALUE"

// repo builds base/repo (the root) next to base/outside/secret.txt and returns the root.
func repo(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root, out := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for p, body := range map[string]string{
		filepath.Join(out, "secret.txt"):        secret + "\n",
		filepath.Join(root, "rec", "ok.jsonl"):  "{}\n",
		filepath.Join(root, "rec", "big.jsonl"): strings.Repeat("x", 64),
		filepath.Join(root, "rec", "bin.dat"):   "a\x00b",
		filepath.Join(root, "rec", "bad.utf8"):  "\xff\xfe",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"rec/good.jsonl":   "ok.jsonl",
		"rec/bad.jsonl":    filepath.Join(out, "secret.txt"),
		"rec/up.jsonl":     "../../outside/secret.txt",
		"rec/abs.jsonl":    filepath.Join(root, "rec", "ok.jsonl"),
		"linkdir":          out,
		"rec/dangling.txt": "nowhere.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	root := repo(t)
	tests := []struct {
		path  string
		limit int64
		want  string // "" = reads "{}\n"
	}{
		{"rec/ok.jsonl", 0, ""},
		{"rec/good.jsonl", 0, ""},
		{"rec/bad.jsonl", 0, "rec/bad.jsonl is a symbolic link to " + filepath.Dir(root)},
		{"rec/up.jsonl", 0, "leads outside the repository root"},
		{"rec/abs.jsonl", 0, "only relative links inside the repository are followed"},
		{"linkdir/secret.txt", 0, "linkdir is a symbolic link"},
		{"../outside/secret.txt", 0, "is outside the repository root"},
		{"rec/missing.jsonl", 0, "no such file"},
		{"rec/big.jsonl", 10, "file too large (64 bytes, limit 10)"},
		{"rec/bin.dat", 0, "not a text file"},
		{"rec/bad.utf8", 0, "not a text file"},
		{"rec", 0, "rec is a directory"},
	}
	for _, tt := range tests {
		data, err := ReadFile(root, filepath.Join(root, filepath.FromSlash(tt.path)), tt.limit)
		switch {
		case tt.want == "" && (err != nil || string(data) != "{}\n"):
			t.Errorf("%s: %q, %v", tt.path, data, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error()+string(data), secret)):
			t.Errorf("%s: %q, %v; want an error containing %q", tt.path, data, err, tt.want)
		}
	}
}

// TestMissingStaysNotExist: callers tell a missing file from a refused one with errors.Is.
func TestMissingStaysNotExist(t *testing.T) {
	t.Parallel()
	root := repo(t)
	for _, p := range []string{"rec/missing.jsonl", "rec/dangling.txt"} {
		if _, err := ReadFile(root, filepath.Join(root, p), 0); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want a not-exist error", p, err)
		}
	}
	if _, err := ReadFile(root, filepath.Join(root, "rec/bad.jsonl"), 0); errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an escaping link reads as missing: %v", err)
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	root := filepath.FromSlash("/repo")
	tests := []struct {
		abs, want string
		ok        bool
	}{
		{"/repo", ".", true},
		{"/repo/a/b.yaml", "a/b.yaml", true},
		{"/repo/../repo/a", "a", true},
		{"/repository/a", "", false},
		{"/a", "", false},
		{"/repo/..", "", false},
	}
	for _, tt := range tests {
		got, ok := Rel(root, filepath.FromSlash(tt.abs))
		if got != tt.want || ok != tt.ok {
			t.Errorf("Rel(%s) = %q, %v; want %q, %v", tt.abs, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir, path string
		want      bool
	}{
		{"/repo", "/repo", true},
		{"/repo", "/repo/a/b", true},
		{"/repo", "/repository", false},
		{"/repo/a", "/repo", false},
		{".", "sub/x", true}, // relative to the working directory, on both sides
		{wd, "sub/x", true},
		{"sub", wd, false},
		{"a", "a/../b", false}, // cleaned before it is compared
	} {
		if got := Within(filepath.FromSlash(tt.dir), filepath.FromSlash(tt.path)); got != tt.want {
			t.Errorf("Within(%s, %s) = %v, want %v", tt.dir, tt.path, got, tt.want)
		}
	}
}

func TestDefault(t *testing.T) {
	t.Parallel()
	for dir, want := range map[string]string{
		"/repo/.agentv": "/repo",
		"/repo/evals":   "/repo/evals",
		"/repo":         "/repo",
	} {
		if got := Default(filepath.FromSlash(dir)); got != filepath.FromSlash(want) {
			t.Errorf("Default(%s) = %s, want %s", dir, got, want)
		}
	}
}

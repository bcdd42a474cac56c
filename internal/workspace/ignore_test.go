package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestRebase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, dir, want string
		ok              bool
	}{
		{"*.log", "", "*.log", true},
		{"# comment", "", "", false},
		{"   ", "sub", "", false},
		{"*.log", "sub", "/sub/**/*.log", true},
		{"/top.txt", "sub", "/sub/top.txt", true},
		{"a/b", "sub/x", "/sub/x/a/b", true},
		{"build/", "sub", "/sub/**/build/", true},
		{"/build/", "sub", "/sub/build/", true},
		{"!keep.txt", "sub", "!/sub/**/keep.txt", true},
		{"**/deep", "sub", "/sub/**/deep", true},
		{"trailing  ", "sub", "/sub/**/trailing", true},
		{`escaped\ `, "sub", `/sub/**/escaped\ `, true},
		{"x", "we*ird[1]", `/we\*ird\[1]/**/x`, true},
		{"/", "sub", "", false},
	}
	for _, tt := range tests {
		got, ok := rebase(tt.line, tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("rebase(%q, %q) = %q, %v; want %q, %v", tt.line, tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}

// TestIgnoreRulesMatchGit checks that the gathered rules ignore exactly what git ignores when
// it reads the .gitignore files in place.
func TestIgnoreRulesMatchGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":            "*.log\n/only-top.txt\nbuild/\n!important.log\ndocs/*.tmp\n",
		"sub/.gitignore":        "*.o\n/anchored.txt\ncache/\n!keep.o\nnested/x.txt\n",
		"sub/deeper/.gitignore": "!*.log\n*.md\n",
		"we*ird/.gitignore":     "w.txt\n",
	}
	paths := []string{
		"a.log", "important.log", "only-top.txt", "sub/only-top.txt", "build/out", "sub/build/out",
		"docs/a.tmp", "docs/deep/a.tmp", "sub/a.o", "sub/keep.o", "sub/deeper/b.o", "sub/anchored.txt",
		"sub/deeper/anchored.txt", "sub/cache/c", "sub/deeper/cache/c", "sub/nested/x.txt", "sub/deeper/nested/x.txt",
		"sub/deeper/c.log", "sub/c.log", "sub/deeper/readme.md", "readme.md", "we*ird/w.txt", "weXird/w.txt", "plain.txt",
	}
	for name, body := range files {
		paths = append(paths, name)
		write(t, filepath.Join(dir, name), body)
	}
	for _, p := range paths {
		if _, ok := files[p]; !ok {
			write(t, filepath.Join(dir, p), "x\n")
		}
	}
	rules, err := ignoreRules(dir)
	if err != nil {
		t.Fatal(err)
	}
	exclude := filepath.Join(t.TempDir(), "exclude")
	write(t, exclude, string(rules))
	repo := filepath.Join(t.TempDir(), "repo")
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"--git-dir=" + repo, "--work-tree=" + dir, "-c", "core.excludesFile=/dev/null"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	untracked := func(args ...string) []string {
		got := strings.Fields(git(append([]string{"ls-files", "--others"}, args...)...))
		sort.Strings(got)
		return got
	}
	inPlace := untracked("--exclude-standard")
	gathered := untracked("--exclude-from=" + exclude)
	if strings.Join(inPlace, " ") != strings.Join(gathered, " ") {
		t.Errorf("git reading .gitignore in place keeps:\n%v\nthe gathered rules keep:\n%v\nrules:\n%s", inPlace, gathered, rules)
	}
	if len(inPlace) < 10 {
		t.Errorf("only %d files kept: the fixture ignores too much: %v", len(inPlace), inPlace)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

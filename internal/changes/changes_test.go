package changes

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

func TestSelect(t *testing.T) {
	t.Parallel()
	suites := []Suite{
		{Path: "evals/a.eval.yaml", Refs: []string{"evals/data/cases.jsonl"}},
		{Path: "evals/b.eval.yaml", Refs: []string{"workspaces/b"}},
		{Path: "evals/c.eval.yaml"},
	}
	tests := []struct {
		name    string
		changed []string
		runAll  []string
		want    []bool
		why     string
	}{
		{"suite file changed", []string{"evals/a.eval.yaml"}, nil, []bool{true, false, false}, "changed: evals/a.eval.yaml"},
		{"referenced file changed", []string{"./evals/data/cases.jsonl"}, nil, []bool{true, false, false}, "references changed file: evals/data/cases.jsonl"},
		{"file under a referenced dir", []string{"workspaces/b/src/x.py"}, nil, []bool{false, true, false}, ""},
		{"run-all glob", []string{"prompts/system.md"}, []string{"prompts/**"}, []bool{true, true, true}, ""},
		{"nothing relevant", []string{"README.md"}, []string{"prompts/**"}, []bool{false, false, false}, "not touched by this change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel := Select(suites, tt.changed, tt.runAll)
			for i, s := range sel {
				if s.Selected != tt.want[i] {
					t.Errorf("%s: selected %v, want %v (%s)", s.Path, s.Selected, tt.want[i], s.Why)
				}
			}
			if tt.why != "" && sel[0].Why != tt.why {
				t.Errorf("why = %q, want %q", sel[0].Why, tt.why)
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestFromGitDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q", "-b", "main")
	write("evals/a.eval.yaml", "name: a\n")
	write("evals/old.eval.yaml", "name: old\nlong: enough content to detect a rename\nmore: lines\n")
	write("gone.txt", "bye\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	git(t, dir, "checkout", "-qb", "pr")
	write("evals/a.eval.yaml", "name: a2\n")
	write("prompts/new.md", "hello\n")
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "mv", "evals/old.eval.yaml", "evals/new.eval.yaml")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "head")
	got, err := FromGitDiff(context.Background(), dir, "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	want := []string{"evals/a.eval.yaml", "evals/new.eval.yaml", "evals/old.eval.yaml", "gone.txt", "prompts/new.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := FromGitDiff(context.Background(), dir, "main", "no-such-ref"); err == nil {
		t.Fatal("bad ref accepted")
	}
}

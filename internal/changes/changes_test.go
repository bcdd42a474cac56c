package changes

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

func TestParseNameStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []string
		err      string
	}{
		{"empty", "", nil, ""},
		{"modified added deleted", "M\x00a.go\x00A\x00b.go\x00D\x00c.go\x00", []string{"a.go", "b.go", "c.go"}, ""},
		{"rename lists both names", "R100\x00old/x.go\x00new/x.go\x00", []string{"old/x.go", "new/x.go"}, ""},
		{"copy lists both names", "C075\x00src.go\x00dst.go\x00M\x00src.go\x00", []string{"src.go", "dst.go"}, ""},
		{"type change and unmerged", "T\x00link\x00U\x00conflict.txt\x00", []string{"link", "conflict.txt"}, ""},
		{"names kept verbatim", "M\x00with space\x00A\x00new\nline\x00A\x00caf\xe9\x00A\x00\"quoted\"\x00", []string{"with space", "new\nline", "caf\xe9", `"quoted"`}, ""},
		{"last field without NUL", "M\x00a.go", []string{"a.go"}, ""},
		{"rename missing its new name", "R100\x00old.go\x00", nil, `status "R100" has no path`},
		{"empty status", "\x00a.go\x00", nil, "empty status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseNameStatus(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("names (-want +got):\n%s", diff)
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
	// Names git would C-quote in a unified diff: a space, a newline, a byte that is not UTF-8.
	write("data/with space.txt", "x\n")
	write("data/new\nline.txt", "x\n")
	write("data/caf\xe9.txt", "x\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "head")
	got, err := FromGitDiff(t.Context(), dir, "main", "pr")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	want := []string{"data/caf\xe9.txt", "data/new\nline.txt", "data/with space.txt", "evals/a.eval.yaml", "evals/new.eval.yaml", "evals/old.eval.yaml", "gone.txt", "prompts/new.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("changed files (-want +got):\n%s", diff)
	}
	if _, err := FromGitDiff(t.Context(), dir, "main", "no-such-ref"); err == nil {
		t.Fatal("bad ref accepted")
	}
}

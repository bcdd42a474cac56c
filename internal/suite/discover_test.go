package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func discoveryTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"evals/a.eval.yaml", "evals/greeter/eval.yaml", "evals/sub/b.eval.yml", "evals/notes.yaml",
		"evals/cases.jsonl", "evals/node_modules/x.eval.yaml", "evals/.git/y.eval.yaml", "other/c.eval.yaml",
		"other/evals/d.eval.yaml", "docs/readme.md", "plain/config.yaml", "plain/deep/list.yml", "empty/readme.md"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../other", filepath.Join(root, "evals", "linked")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestSearch(t *testing.T) {
	t.Parallel()
	root := discoveryTree(t)
	tests := []struct {
		name     string
		paths    []string
		patterns []string
		want     []string
		others   []string
	}{
		{"a directory finds every eval file under it", []string{"evals"}, nil,
			[]string{"evals/a.eval.yaml", "evals/greeter/eval.yaml", "evals/sub/b.eval.yml"}, []string{"evals/cases.jsonl", "evals/notes.yaml"}},
		{"a suite directory", []string{"evals/greeter"}, nil, []string{"evals/greeter/eval.yaml"}, nil},
		{"the repository", []string{"."}, nil,
			[]string{"evals/a.eval.yaml", "evals/greeter/eval.yaml", "evals/sub/b.eval.yml", "other/c.eval.yaml", "other/evals/d.eval.yaml"},
			[]string{"evals/cases.jsonl", "evals/notes.yaml", "plain/config.yaml", "plain/deep/list.yml"}},
		{"action suites globs are relative to the root", []string{"."}, []string{"other/**/*.eval.yaml"},
			[]string{"other/c.eval.yaml", "other/evals/d.eval.yaml"}, nil},
		{"AgentV's own patterns", []string{"."}, []string{"**/evals/**/*.eval.yaml", "**/evals/**/eval.yaml"},
			[]string{"evals/a.eval.yaml", "evals/greeter/eval.yaml", "other/evals/d.eval.yaml"}, nil},
		{"files and directories together, once each", []string{"evals/a.eval.yaml", "evals", "evals/notes.yaml"}, nil,
			[]string{"evals/a.eval.yaml", "evals/greeter/eval.yaml", "evals/notes.yaml", "evals/sub/b.eval.yml"}, nil},
		{"a linked directory given itself is searched", []string{"evals/linked"}, nil,
			[]string{"evals/linked/c.eval.yaml", "evals/linked/evals/d.eval.yaml"}, nil},
		{"nothing to find", []string{"plain"}, nil, nil, []string{"plain/config.yaml", "plain/deep/list.yml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var paths []string
			for _, p := range tt.paths {
				paths = append(paths, filepath.Join(root, p))
			}
			d, err := Search(paths, tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			rel := func(list []string) []string {
				var out []string
				for _, p := range list {
					r, _ := filepath.Rel(root, p)
					out = append(out, filepath.ToSlash(r))
				}
				return out
			}
			if diff := cmp.Diff(tt.want, rel(d.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.others, rel(d.Others)); tt.others != nil && diff != "" {
				t.Errorf("others (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchExplainsNothingFound(t *testing.T) {
	t.Parallel()
	root := discoveryTree(t)
	plain, err := Search([]string{filepath.Join(root, "plain")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "no eval files found in " + filepath.Join(root, "plain") + " (looked for **/*.eval.yaml, **/*.eval.yml, **/eval.yaml, **/eval.yml; " +
		".git, node_modules and .evalgate are not searched); 2 YAML/JSONL file(s) there have other names: " +
		filepath.ToSlash(filepath.Join(root, "plain/config.yaml")) + ", " + filepath.ToSlash(filepath.Join(root, "plain/deep/list.yml")) +
		" (name an eval file NAME.eval.yaml, or pass the file itself)"
	if got := plain.Explain(); got != want {
		t.Errorf("explain:\n%s\nwant\n%s", got, want)
	}
	empty, err := Search([]string{filepath.Join(root, "empty")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := empty.Explain(); len(empty.Files) != 0 || !strings.HasSuffix(got, "; there are no .yaml, .yml or .jsonl files there at all") {
		t.Errorf("explain: %s", got)
	}
	if _, err := Search([]string{filepath.Join(root, "docs/readme.md")}, nil); err == nil || !strings.Contains(err.Error(), "not an eval file") {
		t.Errorf("a Markdown file: %v", err)
	}
	if _, err := Search([]string{filepath.Join(root, "missing")}, nil); err == nil {
		t.Error("a missing path was accepted")
	}
}

// TestSearchAnEvalsDirectoryItself: `evalgate run evals/` found nothing when the patterns
// wanted an evals directory below the argument.
func TestSearchAnEvalsDirectoryItself(t *testing.T) {
	t.Parallel()
	files, err := Discover([]string{filepath.Join(ex, "v4.42.4/features/rubric/evals")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "dataset.eval.yaml" || filepath.Base(files[1]) != "operators.eval.yaml" {
		t.Fatalf("found %q", files)
	}
}

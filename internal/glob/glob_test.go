package glob

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"prompts/**", "prompts/a.md", true},
		{"prompts/**", "prompts/x/y/z.md", true},
		{"prompts/**", "other/prompts/a.md", false},
		{"**/evals/**/*.eval.yaml", "evals/a.eval.yaml", true},
		{"**/evals/**/*.eval.yaml", "pkg/evals/deep/b.eval.yaml", true},
		{"**/evals/**/*.eval.yaml", "pkg/evals/b.yaml", false},
		{"agent/*.py", "agent/main.py", true},
		{"agent/*.py", "agent/sub/main.py", false},
		{"**", "anything/at/all", true},
		{"[", "x", false},
		{"a/**/**/b", "a/b", true},
		{"a/**/**/b", "a/x/y/b", true},
		{"a/**", "a", true}, // ** matches zero segments
		{"**/b", "b", true},
		{"*", "", true},
		{"", "", true},
		{"a", "a/b", false},
		{"a/b", "a", false},
	} {
		if got := Match(tc.pat, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}

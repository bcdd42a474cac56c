package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// TestBlankEvidencePrintsNoParentheses: a failed assertion whose evidence is blank prints its
// text alone, never "()" or a dangling "—", in the table, the comment and the annotations.
func TestBlankEvidencePrintsNoParentheses(t *testing.T) {
	t.Parallel()
	for _, ev := range []string{"", " ", "\n"} {
		run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Path: "evals/s.eval.yaml", Tests: []*result.TestResult{{ID: "t", Verdict: result.Fail,
			Graders: []*result.GraderResult{{Name: "contains-DONE", Type: "contains", Weight: 1, Verdict: result.Fail,
				Assertions: []result.Assertion{{Text: "Output contains DONE", Evidence: ev}}}}}}}}}
		var table bytes.Buffer
		if err := NewReport(run, nil).Table(&table, TableOptions{}); err != nil {
			t.Fatal(err)
		}
		comment := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker})
		for name, text := range map[string]string{"table": table.String(), "comment": comment} {
			if strings.Contains(text, "()") || strings.Contains(text, "Output contains DONE —") {
				t.Errorf("evidence %q: %s:\n%s", ev, name, text)
			}
			if !strings.Contains(text, "Output contains DONE") {
				t.Errorf("evidence %q: %s lacks the assertion:\n%s", ev, name, text)
			}
		}
	}
}

// TestCommentShowsWorkspaceChanges: a failed test's details show what the agent changed; a
// passing test's do not.
func TestCommentShowsWorkspaceChanges(t *testing.T) {
	t.Parallel()
	const diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
	for _, tt := range []struct {
		v    result.Verdict
		want bool
	}{{result.Fail, true}, {result.Pass, false}} {
		run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Path: "evals/s.eval.yaml", Tests: []*result.TestResult{{ID: "t", Verdict: tt.v, Score: 0.5,
			Output: &result.Output{Answer: "done", FileChanges: diff}}}}}}
		got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker})
		if has := strings.Contains(got, "**Workspace changes:**\n\n```diff\n"+diff); has != tt.want {
			t.Errorf("%s: workspace changes shown %v, want %v:\n%s", tt.v, has, tt.want, got)
		}
	}
}

package reports

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// TestCriteriaAcrossTheRunKeepsDifferentCriteriaApart: AgentV generates rubric-1 for the
// first criterion of every test; two tests' rubric-1 with different texts are two rows, while
// one criterion shared by tests (the same text) is one.
func TestCriteriaAcrossTheRunKeepsDifferentCriteriaApart(t *testing.T) {
	t.Parallel()
	test := func(id, outcome string, sc float64, v result.Verdict) *result.TestResult {
		return &result.TestResult{ID: id, Verdict: v, Score: sc, Graders: []*result.GraderResult{{Name: "rubrics", Type: "rubrics", Weight: 1, Score: sc, Verdict: v,
			Criteria: []*result.CriterionResult{{ID: "rubric-1", Outcome: outcome, Weight: 1, Score: sc, Verdict: v}}}}}
	}
	tests := []struct {
		name  string
		tests []*result.TestResult
		want  []string
	}{
		{"different texts", []*result.TestResult{test("a", "Names the install command", 1, result.Pass), test("b", "Links the changelog", 0, result.Fail)},
			[]string{"| rubrics › `rubric-1` (Links the changelog) | 1 | 0/1 (0%)", "| rubrics › `rubric-1` (Names the install command) | 1 | 1/1 (100%)"}},
		{"one shared criterion", []*result.TestResult{test("a", "Is polite", 1, result.Pass), test("b", "Is polite", 0, result.Fail)},
			[]string{"| rubrics › `rubric-1` | 2 | 1/2 (50%)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Path: "evals/s.eval.yaml", Tests: tt.tests}}}
			got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker})
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("comment lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

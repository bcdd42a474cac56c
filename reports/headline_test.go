package reports

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// TestCommentScoreWording: the comment's mean score never reads as the gate beside failed
// tests, and a cancelled run's mean says how few tests it covers.
func TestCommentScoreWording(t *testing.T) {
	t.Parallel()
	mk := func(tests ...*result.TestResult) *result.Run {
		s := &result.SuiteResult{Name: "s", Path: "evals/s.eval.yaml", Tests: tests}
		return &result.Run{Suites: []*result.SuiteResult{s}}
	}
	tests := []struct {
		name    string
		run     *result.Run
		want    string
		notWant string
	}{
		{"failed tests beside a high mean", mk(
			&result.TestResult{ID: "a", Verdict: result.Pass, Score: 1},
			&result.TestResult{ID: "b", Verdict: result.Pass, Score: 1},
			&result.TestResult{ID: "c", Verdict: result.Fail, Score: 0.6}),
			"**Mean score 0.86** (a test passes at ≥ 0.80)", "**Score"},
		{"a cancelled run", mk(
			&result.TestResult{ID: "a", Verdict: result.Pass, Score: 1},
			&result.TestResult{ID: "b", Verdict: result.Skip, Error: "cancelled"},
			&result.TestResult{ID: "c", Verdict: result.Skip, Error: "cancelled"}),
			"**Mean score 1.00 of 1 graded** (a test passes at ≥ 0.80)", "**Score 1.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := NewReport(tt.run, nil).Comment(CommentOptions{Marker: testMarker})
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.notWant) {
				t.Errorf("want %q, not %q:\n%s", tt.want, tt.notWant, got)
			}
		})
	}
}

// TestCommentListsFailingSuitesFirst: a passing suite's section never comes before a failing
// one's, whatever the run's order.
func TestCommentListsFailingSuitesFirst(t *testing.T) {
	t.Parallel()
	run := &result.Run{Suites: []*result.SuiteResult{
		{Name: "good", Path: "evals/good.eval.yaml", Tests: []*result.TestResult{{ID: "a", Verdict: result.Pass, Score: 1}}},
		{Name: "bad", Path: "evals/bad.eval.yaml", Tests: []*result.TestResult{{ID: "b", Verdict: result.Fail, Score: 0.2}}},
	}}
	got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker})
	bad, good := strings.Index(got, "### ❌ bad"), strings.Index(got, "### ✅ good")
	if bad < 0 || good < 0 || bad > good {
		t.Errorf("want the failing suite first:\n%s", got)
	}
}

package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// trialRun is a suite of tests whose trials pass (1) or fail (0) as given, under mean.
func trialRun(outcomes ...[]float64) *result.Run {
	s := &result.SuiteResult{Name: "s"}
	for i, os := range outcomes {
		t := &result.TestResult{Suite: "s", ID: fmt.Sprintf("t%d", i), TrialSummary: &result.Trials{Strategy: "mean", Count: len(os), Ran: len(os)}}
		for k, o := range os {
			v := result.Fail
			if o == 1 {
				v = result.Pass
				t.TrialSummary.Passed++
			}
			t.Trials = append(t.Trials, &result.TrialResult{Trial: k + 1, Score: o, Verdict: v})
			t.Score += o / float64(len(os))
		}
		t.Verdict = result.Fail
		if t.Score >= 0.8 {
			t.Verdict = result.Pass
		}
		s.Tests = append(s.Tests, t)
	}
	return &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{s}}
}

func TestComparisonRendering(t *testing.T) {
	t.Parallel()
	ten := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	base := trialRun(ten, ten, []float64{1})
	head := trialRun([]float64{0, 0, 0}, []float64{1, 1, 0}, []float64{0})
	c := compare.Compare(base, head, compare.Options{})
	rep := NewReport(head, c)
	comment := rep.Comment(CommentOptions{})
	var table strings.Builder
	if err := rep.Table(&table, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"⬇️ 1 significant regression · ↕️ 2 changed, not significant",
		"Suite-level: pooled over 3 tests (exact stratified CMH)",
		"> ⚠️ 2 of 3 tests ran a different number of trials on each side (e.g. base 10, head 3)",
		"- ⬇️ s › `t0`: ✅ 0.90 → ❌ 0.00 (-0.90, 95 % CI [-0.98, -0.26]; 10 vs 3 trials, Boschloo exact p 0.004, adjusted 0.014)",
		"- ↕️ s › `t2`: ✅ 1.00 → ❌ 0.00 (-1.00, 95 % CI [-1.00, +0.12]; 1 vs 1 trial, Boschloo exact p 0.25, adjusted 0.48; a drop this size needs ≈ 5 trials per side) — changed, not significant",
		"| ⬇️ -0.90 [-0.98, -0.26] |",
	} {
		if !strings.Contains(comment, want) {
			t.Errorf("comment lacks %q:\n%s", want, comment)
		}
	}
	for _, want := range []string{"-0.90 v", "-1.00 ~", "vs base: 1 significant regression · 2 changed, not significant", "warning: 2 of 3 tests"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

// TestNothingComparableRendering: an all-error baseline is not "0 regressions · mean Δ ±0.00".
func TestNothingComparableRendering(t *testing.T) {
	t.Parallel()
	head := trialRun([]float64{1}, []float64{1})
	base := trialRun([]float64{1}, []float64{1})
	for _, tr := range base.Suites[0].Tests {
		tr.Verdict, tr.Error = result.Error, "agent: timed out"
	}
	c := compare.Compare(base, head, compare.Options{})
	rep := NewReport(head, c)
	comment := rep.Comment(CommentOptions{})
	var table strings.Builder
	if err := rep.Table(&table, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"comment": comment, "table": table.String()} {
		if !strings.Contains(got, "nothing comparable") || strings.Contains(got, "0 significant regressions") || strings.Contains(got, "±0.00 over") {
			t.Errorf("%s:\n%s", name, got)
		}
	}
}

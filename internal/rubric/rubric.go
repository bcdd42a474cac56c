// Package rubric is evalgate's scoring: pure functions from rubric criteria and judge findings
// to scores and verdicts (checklist, score-range and Likert modes, weights, required-criterion
// gating, grader aggregation and the test verdict). It does no I/O and calls no model.
package rubric

import (
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Check is the judge's finding for one criterion, as parsed from its reply.
type Check struct {
	ID        string
	Satisfied *bool // checklist mode
	Score     *int  // range mode (0–10) or Likert mode (a scale point)
	Reasoning string
	// Err is set when no usable finding exists for this criterion (the judge omitted it after
	// retries, or returned the wrong type); the criterion is then an error, never dropped.
	Err string
}

// Checklist scores checklist criteria: score = Σ w(satisfied) / Σ w.
func Checklist(criteria []*suite.Criterion, checks []Check, th result.Thresholds) *result.GraderResult {
	panic("contract: filled in by the rubric work")
}

// Range scores score-range criteria: score = Σ (s/10)·w / Σ w.
func Range(criteria []*suite.Criterion, checks []Check, th result.Thresholds) *result.GraderResult {
	panic("contract: filled in by the rubric work")
}

// Likert scores a Potato rubric_eval scheme: weighted = Σ r·w / Σ w on the scale, normalised
// (weighted − min)/(max − min) for the score and verdict.
func Likert(s *suite.LikertScheme, checks []Check, th result.Thresholds) *result.GraderResult {
	panic("contract: filled in by the rubric work")
}

// VerdictOf maps a score to pass, borderline or fail.
func VerdictOf(score float64, th result.Thresholds) result.Verdict {
	panic("contract: filled in by the rubric work")
}

// ForTest returns the thresholds a test is judged by: the run's, with Pass replaced by the
// test's (or suite's) threshold when set, and Borderline kept at or below Pass.
func ForTest(run result.Thresholds, suiteTh, testTh *float64) result.Thresholds {
	panic("contract: filled in by the rubric work")
}

// Test sets tr.Score, tr.Verdict, tr.Threshold and tr.Gates from tr.Graders.
func Test(tr *result.TestResult, th result.Thresholds) {
	panic("contract: filled in by the rubric work")
}

// Summarize counts tests by verdict and averages their scores.
func Summarize(tests []*result.TestResult) result.Summary {
	panic("contract: filled in by the rubric work")
}

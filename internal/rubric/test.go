package rubric

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
)

// Test sets tr.Score, tr.Verdict, tr.Threshold and tr.Gates from tr.Graders.
//
// score = Σ wᵢ·sᵢ / Σ wᵢ over graders that ran (skip excluded; weight 0 is informational),
// and 0 when a required grader scored below its minimum (min_score, a numeric required, else
// the pass threshold), as AgentV 4.42's orchestrator computes it. The verdict is error when
// the target or any grader could not produce a result, fail when a required criterion or
// grader failed its gate, else by thresholds. A failed required criterion fails the test
// without changing its score: AgentV only fails that grader, and keeps the weighted score.
func Test(tr *result.TestResult, th result.Thresholds) {
	tr.Threshold = th.Pass
	tr.Gates = nil
	if tr.Error != "" {
		tr.Score, tr.Verdict = 0, result.Error
		if tr.FailureStage == "" {
			tr.FailureStage = result.StageAgent
		}
		return
	}
	var scores, weights []float64
	var errs []string
	requiredFailed := false
	for _, g := range tr.Graders {
		if g.Verdict == result.Skip {
			continue
		}
		scores = append(scores, g.Score)
		weights = append(weights, g.Weight)
		if g.Verdict == result.Error {
			errs = append(errs, fmt.Sprintf("%s: %s", g.Name, g.Error))
			continue
		}
		for _, c := range g.Criteria {
			if c.Gated {
				tr.Gates = append(tr.Gates, criterionGate(g, c, th))
			}
		}
		if g.Required {
			min := th.Pass
			if g.MinScore != nil {
				min = *g.MinScore
			}
			if g.Score < min {
				g.Gated, requiredFailed = true, true
				tr.Gates = append(tr.Gates, fmt.Sprintf("required grader %s scored %.2f < %.2f", g.Name, g.Score, min))
			}
		}
	}
	tr.Score = weighted(scores, weights)
	if requiredFailed {
		tr.Score = 0
	}
	switch {
	case len(errs) > 0:
		tr.Verdict = result.Error
		tr.Error = joinLines(errs)
		if tr.FailureStage == "" {
			tr.FailureStage = result.StageEvaluator
		}
	case len(tr.Gates) > 0:
		tr.Verdict = result.Fail
	case len(scores) == 0:
		// No grader produced a score: nothing says the test passed.
		tr.Verdict = result.Error
		tr.Error = "no grader produced a result"
		tr.FailureStage = result.StageEvaluator
	default:
		tr.Verdict = VerdictOf(tr.Score, th)
	}
}

// criterionGate words why a gated criterion failed its test.
func criterionGate(g *result.GraderResult, c *result.CriterionResult, th result.Thresholds) string {
	if c.Satisfied != nil {
		return fmt.Sprintf("required criterion %s (%s) not satisfied", c.ID, g.Name)
	}
	min := th.Pass
	if c.MinScore != nil {
		min = *c.MinScore
	}
	return fmt.Sprintf("criterion %s (%s) scored %.2f < min %.2f", c.ID, g.Name, c.Score, min)
}

// summarize counts tests by verdict and averages their scores. The roll-up verdict is the
// worst test verdict (error > fail > borderline > pass); an empty list passes, all-skipped skips.
func summarize(tests []*result.TestResult) result.Summary {
	var s result.Summary
	var sum float64
	graded := 0
	worst := result.Pass
	for _, t := range tests {
		s.Total++
		s.Usage.Add(t.Usage)
		s.DurationMS += t.DurationMS
		switch t.Verdict {
		case result.Pass:
			s.Passed++
		case result.Borderline:
			s.Borderline++
		case result.Fail:
			s.Failed++
		case result.Skip:
			s.Skipped++
			continue
		default:
			s.Errors++
		}
		if t.Verdict != result.Error && t.Verdict != result.Skip {
			sum += t.Score
			graded++
		}
		if t.Verdict.Rank() > worst.Rank() {
			worst = t.Verdict
		}
	}
	if graded > 0 {
		s.Score = sum / float64(graded)
	}
	if s.Total > 0 && s.Skipped == s.Total {
		worst = result.Skip
	}
	s.Verdict = worst
	return s
}

// SummarizeRun sets every suite's Summary and the run's from the tests they hold: a suite
// with an Error (it could not be loaded or set up) is an error, and so is the run then,
// whatever its tests did. The run's DurationMS is its wall time, FinishedAt − StartedAt, not
// the sum of its tests'. The engine calls it at the end of a run and a shard merge calls it
// on the merged run, so both summarise alike.
func SummarizeRun(run *result.Run) {
	var tests []*result.TestResult
	suiteErr := false
	for _, sr := range run.Suites {
		sr.Summary = summarize(sr.Tests)
		if sr.Error != "" {
			sr.Summary.Verdict = result.Error
			suiteErr = true
		}
		tests = append(tests, sr.Tests...)
	}
	run.Summary = summarize(tests)
	if suiteErr {
		run.Summary.Verdict = result.Error
	}
	run.Summary.DurationMS = run.FinishedAt.Sub(run.StartedAt).Milliseconds()
}

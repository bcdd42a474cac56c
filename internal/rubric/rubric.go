// Package rubric is evalgate's scoring: pure functions from rubric criteria and judge findings
// to scores and verdicts (checklist, score-range and Likert modes, weights, required-criterion
// gating, grader aggregation and the test verdict). It does no I/O and calls no model.
//
// The rules are DESIGN §3. Where AgentV 4.42 is looser, evalgate is stricter and says so:
// a failed required criterion fails the test (not only its grader), and a criterion the judge
// did not return is an error kept in the denominator, never silently dropped.
package rubric

import (
	"fmt"
	"math"

	"github.com/evalgate/evalgate/internal/result"
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

// VerdictOf maps a score to pass, borderline or fail.
func VerdictOf(score float64, th result.Thresholds) result.Verdict {
	switch {
	case score >= th.Pass:
		return result.Pass
	case score >= th.Borderline:
		return result.Borderline
	default:
		return result.Fail
	}
}

// ForTest returns the thresholds a test is judged by: the run's, with Pass replaced by the
// test's (or suite's) threshold when set, and Borderline kept at or below Pass.
func ForTest(run result.Thresholds, suiteTh, testTh *float64) result.Thresholds {
	th := run
	if suiteTh != nil {
		th.Pass = *suiteTh
	}
	if testTh != nil {
		th.Pass = *testTh
	}
	th.Borderline = math.Min(th.Borderline, th.Pass)
	return th
}

// byID indexes checks by criterion id; the first finding for an id wins, because a judge that
// repeats an id has contradicted itself and re-reading it would double count.
func byID(checks []Check) map[string]Check {
	m := make(map[string]Check, len(checks))
	for _, c := range checks {
		if _, dup := m[c.ID]; !dup {
			m[c.ID] = c
		}
	}
	return m
}

// unknownIDs lists the ids the judge returned that are not criteria, in reply order.
func unknownIDs(checks []Check, known map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range checks {
		if !known[c.ID] && !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c.ID)
		}
	}
	return out
}

// weighted returns Σ wᵢ·sᵢ / Σ wᵢ, 0 when the weights sum to 0.
func weighted(scores, weights []float64) float64 {
	var num, den float64
	for i := range scores {
		num += scores[i] * weights[i]
		den += weights[i]
	}
	if den <= 0 {
		return 0
	}
	return clamp01(num / den)
}

func clamp01(x float64) float64 {
	return math.Max(0, math.Min(1, x))
}

// finish sets a rubric grader's score and verdict from its criteria: error if any criterion
// errored, fail if any is gated, else by thresholds.
func finish(g *result.GraderResult, th result.Thresholds) *result.GraderResult {
	scores := make([]float64, len(g.Criteria))
	weights := make([]float64, len(g.Criteria))
	var errs []string
	for i, c := range g.Criteria {
		scores[i], weights[i] = c.Score, c.Weight
		if c.Verdict == result.Error {
			errs = append(errs, fmt.Sprintf("criterion %s: %s", c.ID, c.Error))
		}
		if c.Gated {
			g.Gated = true
		}
	}
	g.Score = weighted(scores, weights)
	switch {
	case len(errs) > 0:
		g.Verdict = result.Error
		g.Error = joinLines(errs)
	case g.Gated:
		g.Verdict = result.Fail
	default:
		g.Verdict = VerdictOf(g.Score, th)
	}
	return g
}

func joinLines(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

func ptr[T any](v T) *T { return &v }

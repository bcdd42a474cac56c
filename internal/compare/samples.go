package compare

import (
	"math"

	"github.com/evalgate/evalgate/internal/result"
)

// sample is one side of a pair: its values, and whether they are pass/fail outcomes (all 0
// or 1), which are compared as proportions rather than as scores.
type sample struct {
	vals     []float64
	passFail bool
	// passAtK marks trials run under pass_at_k, which stops at the first pass.
	passAtK bool
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func newSample(vals []float64) sample {
	s := sample{vals: vals, passFail: true}
	for _, v := range vals {
		if v != 0 && v != 1 {
			s.passFail = false
		}
	}
	return s
}

// testSample is what a test contributes to a comparison, ok false when it has nothing to
// compare (it errored or was skipped as a whole). With trials the values are the trials:
// under pass_at_k each trial's pass (1) or not (0), the outcome pass_at_k decides on;
// otherwise each trial's score as the strategy averages it (an errored trial, or one failed
// by a required criterion or grader, scores 0). Without trials it is the test's one score.
func testSample(t *result.TestResult) (sample, bool) {
	if t == nil || !isScored(t.Verdict) {
		return sample{}, false
	}
	if len(t.Trials) == 0 {
		return newSample([]float64{finite(t.Score)}), true
	}
	pak := t.TrialSummary != nil && t.TrialSummary.Strategy == "pass_at_k"
	vals := make([]float64, 0, len(t.Trials))
	for _, tr := range t.Trials {
		if tr == nil {
			continue
		}
		switch {
		case pak && tr.Verdict == result.Pass:
			vals = append(vals, 1)
		case pak, tr.Verdict == result.Error, len(tr.Gates) > 0 && tr.Verdict != result.Pass:
			vals = append(vals, 0)
		default:
			vals = append(vals, finite(tr.Score))
		}
	}
	if len(vals) == 0 {
		return sample{}, false
	}
	s := newSample(vals)
	// Asked for trials, however many ran: pass_at_k stops at the first pass.
	s.passAtK = pak && max(t.TrialSummary.Count, len(vals)) > 1
	return s, true
}

// criterionPasses are one grader's or criterion's per-trial outcomes as 1 (passed) and 0, from
// the trial summary's pass counts: results.json keeps no per-trial criterion scores.
func criterionPasses(t *result.TestResult, grader, crit string) []float64 {
	if t == nil || t.TrialSummary == nil {
		return nil
	}
	for _, c := range t.TrialSummary.Criteria {
		if c == nil || c.Grader != grader || c.Criterion != crit || c.Total < 1 {
			continue
		}
		if c.Total > MaxTrials {
			// No run of evalgate's has more trials; a results file that says so is not
			// allocated for (a baseline is read from an artifact).
			return nil
		}
		out := make([]float64, c.Total)
		for i := range min(c.Passed, c.Total) {
			out[i] = 1
		}
		return out
	}
	return nil
}

// criterionSamples are the samples a criterion pair is compared over: the per-trial pass
// outcomes when both sides ran trials, else the judge samples when both asked the judge at
// least twice, else the one score on each side; ok false when a side has no score.
func criterionSamples(base, head *result.TestResult, k pairKey, b, h leaf) (sample, sample, bool) {
	bt, ht := criterionPasses(base, k.a, k.b), criterionPasses(head, k.a, k.b)
	if bt != nil && ht != nil {
		return newSample(bt), newSample(ht), true
	}
	if bj, hj := judgeSamples(b), judgeSamples(h); bj != nil && hj != nil && bt == nil && ht == nil {
		return newSample(bj), newSample(hj), true
	}
	if !isScored(b.verdict) || !isScored(h.verdict) {
		return sample{}, sample{}, false
	}
	return newSample([]float64{finite(b.score)}), newSample([]float64{finite(h.score)}), true
}

// judgeSamples are a criterion's normalised judge sample scores, nil with fewer than two.
func judgeSamples(l leaf) []float64 {
	if l.c == nil || l.c.Agreement == nil || len(l.c.Agreement.Scores) < 2 {
		return nil
	}
	out := make([]float64, len(l.c.Agreement.Scores))
	for i, s := range l.c.Agreement.Scores {
		out[i] = finite(s)
	}
	return out
}

package reports

import (
	"math"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/stats"
)

// Methods of deciding a change, recorded on each paired delta.
const (
	// MethodWelch is Welch's t-interval over the trials (or, for a criterion without trials,
	// the judge samples) of both sides.
	MethodWelch = "welch-t"
	// MethodThreshold is the fixed noise threshold, used when either side has one sample.
	MethodThreshold = "threshold"
)

// Spread is the 95 % interval of a Δ measured over trials, and how the change was decided.
// It is embedded in TestDelta and CriterionDelta (additive JSON fields).
type Spread struct {
	// CILow and CIHigh bound the 95 % Welch t-interval of Δ, clamped to [−1, 1]; nil under the
	// threshold method.
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// Method is MethodWelch or MethodThreshold; "" for an added or removed test.
	Method string `json:"method,omitempty"`
}

// decide classifies one pair. With two or more samples on both sides the Δ is the difference
// of the sample means and it is a regression only when its whole 95 % Welch interval lies
// below 0 and the Δ is at least noise (a significant but negligible drop is not one); an
// improvement mirrors it. A verdict crossing into fail is then not a regression by itself: the
// trials say whether the drop is real. Otherwise classify's threshold rules apply.
func decide(base, head result.Verdict, bs, hs, noise float64, bsamp, hsamp []float64) (*float64, Change, Spread) {
	iv, ok := stats.Welch(bsamp, hsamp)
	if !ok || !isScored(base) || !isScored(head) {
		d, ch := classify(base, head, bs, hs, noise)
		return d, ch, Spread{Method: MethodThreshold}
	}
	// Scores lie in [0, 1], so Δ lies in [−1, 1]; clamping the interval there (as AgentV clamps
	// a trial interval to [0, 1]) changes no decision, only what the reader sees.
	d, lo, hi := iv.Delta, math.Max(iv.Low, -1), math.Min(iv.High, 1)
	sp := Spread{CILow: &lo, CIHigh: &hi, Method: MethodWelch}
	switch {
	case hi < -eps && d <= -noise+eps:
		return &d, Regression, sp
	case lo > eps && d >= noise-eps:
		return &d, Improvement, sp
	}
	return &d, Unchanged, sp
}

// trialScores are a test's trial scores (an errored trial scores 0), nil for a single run.
func trialScores(t *result.TestResult) []float64 {
	if t == nil || len(t.Trials) < 2 {
		return nil
	}
	out := make([]float64, 0, len(t.Trials))
	for _, tr := range t.Trials {
		if tr == nil {
			continue
		}
		s := finite(tr.Score)
		if tr.Verdict == result.Error {
			s = 0
		}
		out = append(out, s)
	}
	return out
}

// criterionPasses are one grader's or criterion's per-trial outcomes as 1 (passed) and 0, from
// the trial summary's pass counts: results.json keeps no per-trial criterion scores, so the
// interval is over the pass rate.
func criterionPasses(t *result.TestResult, grader, crit string) []float64 {
	if t == nil || t.TrialSummary == nil {
		return nil
	}
	for _, c := range t.TrialSummary.Criteria {
		if c == nil || c.Grader != grader || c.Criterion != crit || c.Total < 2 {
			continue
		}
		out := make([]float64, c.Total)
		for i := range min(c.Passed, c.Total) {
			out[i] = 1
		}
		return out
	}
	return nil
}

// criterionSamples are the samples a criterion pair is decided over: the per-trial pass rates
// when both sides ran trials, else the judge samples when neither side ran trials and both
// asked the judge at least twice, else none (the threshold rules).
func criterionSamples(base, head *result.TestResult, k pairKey, b, h row) ([]float64, []float64) {
	bt, ht := criterionPasses(base, k.a, k.b), criterionPasses(head, k.a, k.b)
	if bt != nil && ht != nil {
		return bt, ht
	}
	if bt != nil || ht != nil {
		return nil, nil
	}
	return judgeSamples(b), judgeSamples(h)
}

// judgeSamples are a criterion's normalised judge sample scores, nil with fewer than two.
func judgeSamples(r row) []float64 {
	if r.c == nil || r.c.Agreement == nil || len(r.c.Agreement.Scores) < 2 {
		return nil
	}
	out := make([]float64, len(r.c.Agreement.Scores))
	for i, s := range r.c.Agreement.Scores {
		out[i] = finite(s)
	}
	return out
}

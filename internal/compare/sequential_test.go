package compare

import (
	"math"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// adaptive is trials("t", "mean", scores…) as adaptive trials decided it against a base of
// baseRan trials with basePassed passes.
func adaptive(id string, baseRan, basePassed int, stop string, p, level float64, scores ...float64) *result.TestResult {
	t := trials(id, "mean", scores...)
	bound := level * 1.5
	t.TrialSummary.MaxTrials, t.TrialSummary.StopReason = 10, stop
	t.TrialSummary.BaseRan, t.TrialSummary.BasePassed = baseRan, basePassed
	t.TrialSummary.PValue, t.TrialSummary.Boundary, t.TrialSummary.Level = &p, &bound, &level
	return t
}

// A test adaptive trials decided while they ran keeps that decision: testing the stopped
// data again would not keep the error rate, and its level is not spent twice.
func TestCompareKeepsSequentialDecisions(t *testing.T) {
	t.Parallel()
	ten := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	all := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	base := runOf(trials("down", "mean", ten...), trials("same", "mean", all...), trials("fixed", "mean", ten...))
	head := runOf(
		adaptive("down", 10, 9, result.StopRegression, 0.0001, 0.01, 0, 0, 0, 0, 0, 0, 0, 0),
		adaptive("same", 10, 10, result.StopNotWorse, 1, 0.01, 1),
		trials("fixed", "mean", ten...),
	)
	c := Compare(base, head, Options{Alpha: 0.05})
	down, same, fixed := c.Test("s", "down"), c.Test("s", "same"), c.Test("s", "fixed")
	if down.Change != Regression || down.Method != methodSequential || down.P == nil || *down.P != 0.0001 {
		t.Errorf("down: %s %s p=%v, want a sequential regression at p=0.0001", down.Change, down.Method, down.P)
	}
	if down.HeadN != 8 || down.BaseN != 10 || down.CILow == nil || *down.CILow >= *down.CIHigh {
		t.Errorf("down: n %d/%d, interval %v..%v", down.BaseN, down.HeadN, down.CILow, down.CIHigh)
	}
	if same.Change != Unchanged || same.Method != methodSequential {
		t.Errorf("same: %s %s, want unchanged by the sequential test", same.Change, same.Method)
	}
	if fixed.Method != MethodBoschloo || fixed.Change != Unchanged {
		t.Errorf("fixed: %s %s, want an unchanged Boschloo pair", fixed.Change, fixed.Method)
	}
	if c.Comparable != 3 || c.Regressions() != 1 {
		t.Errorf("comparable %d, regressions %d; want 3 and 1", c.Comparable, c.Regressions())
	}
	// The mean Δ is over the same comparable tests: (−0.9 + 0 + 0) / 3.
	if math.Abs(c.MeanDelta-(-0.3)) > 1e-9 {
		t.Errorf("mean Δ %v, want -0.3", c.MeanDelta)
	}
	// Only the fixed test is in the Holm family, at what the sequential tests left: 0.03.
	if c.Pooled != nil {
		t.Errorf("pooled test over %d tests: the sequential tests must stay out of it", c.Pooled.Tests)
	}
	if fixed.PAdjusted == nil || *fixed.PAdjusted != *fixed.P {
		t.Errorf("fixed: p %v adjusted %v, want a family of one", fixed.P, fixed.PAdjusted)
	}
}

// A regression at the fixed family's full level is not significant once adaptive trials
// have spent most of it.
func TestCompareFixedFamilyGetsTheRest(t *testing.T) {
	t.Parallel()
	base := runOf(trials("fixed", "mean", 1, 1, 1, 1, 1), trials("seq", "mean", 1))
	head := runOf(trials("fixed", "mean", 0, 0, 1, 1, 0), adaptive("seq", 1, 1, result.StopMaxTrials, 0.5, 0.045, 1))
	full := Compare(runOf(base.Suites[0].Tests[0]), runOf(head.Suites[0].Tests[0]), Options{Alpha: 0.05})
	if f := full.Test("s", "fixed"); f.Change != Regression {
		t.Fatalf("alone, the fixed drop is %s (p %v): the case needs a drop significant at 0.05", f.Change, *f.P)
	}
	c := Compare(base, head, Options{Alpha: 0.05})
	if f := c.Test("s", "fixed"); f.Change == Regression {
		t.Errorf("with 0.045 spent by adaptive trials, p=%v is significant: the level was spent twice", *f.P)
	}
}

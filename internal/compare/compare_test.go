package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// trials is a test run once per score under strategy (a 1 passes, anything else fails).
func trials(id, strategy string, scores ...float64) *result.TestResult {
	t := &result.TestResult{ID: id, TrialSummary: &result.Trials{Strategy: strategy, Count: len(scores), Ran: len(scores)}}
	for i, s := range scores {
		v := result.Fail
		if s >= 0.8 {
			v = result.Pass
			t.TrialSummary.Passed++
		}
		t.Trials = append(t.Trials, &result.TrialResult{Trial: i + 1, Score: s, Verdict: v})
		t.Score += s / float64(len(scores))
	}
	t.Verdict = result.Fail
	if t.Score >= 0.8 {
		t.Verdict = result.Pass
	}
	return t
}

// single is a test run once.
func single(id string, score float64, v result.Verdict) *result.TestResult {
	return &result.TestResult{ID: id, Score: score, Verdict: v}
}

func runOf(tests ...*result.TestResult) *result.Run {
	return &result.Run{Suites: []*result.SuiteResult{{Name: "s", Tests: tests}}}
}

func TestComparePairs(t *testing.T) {
	t.Parallel()
	P, F, E := result.Pass, result.Fail, result.Error
	tests := []struct {
		name       string
		base, head *result.TestResult
		want       Change
		method     string
		p          float64 // NaN: not tested
		needs      bool
	}{
		// The case: the zero-variance rule called this certain; it is p = 1/16.
		{"trials 1,1 vs 0,0", trials("t", "mean", 1, 1), trials("t", "mean", 0, 0), Changed, MethodBoschloo, 1.0 / 16, true},
		{"a single flip", single("t", 1, P), single("t", 0, F), Changed, MethodBoschloo, 0.25, true},
		{"a single graded drop", single("t", 0.9, P), single("t", 0.3, F), Changed, MethodPermutation, 0.5, true},
		{"ten passes to ten failures", trials("t", "mean", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), trials("t", "mean", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			Regression, MethodBoschloo, 0, false},
		{"graded trials drop", trials("t", "mean", 1, 1, 0.95, 1, 1), trials("t", "mean", 0.85, 0.8, 0.85, 0.8, 0.85),
			Regression, MethodPermutation, 1.0 / 252, false},
		{"unequal counts, tested as they are", trials("t", "mean", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), trials("t", "mean", 0, 0, 0),
			Regression, MethodBoschloo, 0.00089, false}, // Fisher's would be 1/286
		{"ten failures to ten passes", trials("t", "mean", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), trials("t", "mean", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
			Improvement, MethodBoschloo, 1, false},
		{"small noisy drop", trials("t", "mean", 1, 0, 1, 1, 1), trials("t", "mean", 1, 1, 0, 1, 0), Changed, MethodBoschloo, math.NaN(), true},
		{"steady", single("t", 0.9, P), single("t", 0.85, P), Unchanged, MethodPermutation, 0.5, false},
		{"head errored", single("t", 0.9, P), single("t", 0, E), Changed, "", math.NaN(), false},
		{"base errored", single("t", 0, E), single("t", 0.9, P), Unchanged, "", math.NaN(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(runOf(tc.base), runOf(tc.head), Options{})
			d := c.Test("s", "t")
			if d.Change != tc.want || d.Method != tc.method {
				t.Fatalf("change %s by %q, want %s by %q (%+v)", d.Change, d.Method, tc.want, tc.method, d.Stat)
			}
			if tc.method == "" {
				if d.Delta != nil || d.P != nil || c.Comparable != 0 {
					t.Errorf("an untested pair has delta %v p %v, comparable %d", d.Delta, d.P, c.Comparable)
				}
				return
			}
			if d.P == nil || d.PAdjusted == nil || d.CILow == nil || d.CIHigh == nil || d.Delta == nil {
				t.Fatalf("tested pair without p, interval or delta: %+v", d.Stat)
			}
			if !math.IsNaN(tc.p) && math.Abs(*d.P-tc.p) > 1e-4 {
				t.Errorf("p = %v, want %v", *d.P, tc.p)
			}
			if !(*d.CIHigh-*d.CILow > 0.05) || *d.CILow > *d.Delta || *d.CIHigh < *d.Delta {
				t.Errorf("interval [%v, %v] around %v: never zero width, always around Δ", *d.CILow, *d.CIHigh, *d.Delta)
			}
			if (d.NeedsTrials != 0) != tc.needs {
				t.Errorf("needs_trials = %d, want set %v", d.NeedsTrials, tc.needs)
			}
		})
	}
}

func TestNeedsTrials(t *testing.T) {
	t.Parallel()
	// 1 → 0 at level 0.05: 3 vs 0 of 3 gives Fisher p 1/20; 2 of 2 gives 1/6.
	if n := needsTrials(1, 0, 0.05); n != 3 {
		t.Errorf("needsTrials(1, 0) = %d, want 3", n)
	}
	if n := needsTrials(0.8, 0.79, 0.05); n != -1 {
		t.Errorf("a 0.01 drop: %d, want -1 (more than %d)", n, MaxTrials)
	}
}

// TestPooled: eight single flips are no test's evidence alone, but together they are.
func TestPooled(t *testing.T) {
	t.Parallel()
	var base, head []*result.TestResult
	for i := range 10 {
		id := string(rune('a' + i))
		base = append(base, single(id, 1, result.Pass))
		if i < 8 {
			head = append(head, single(id, 0, result.Fail))
		} else {
			head = append(head, single(id, 1, result.Pass))
		}
	}
	c := Compare(runOf(base...), runOf(head...), Options{})
	if c.Regressions() != 0 || !c.PooledRegression() || c.Pooled.Method != MethodStratifiedExact {
		t.Fatalf("regressions %d, pooled %+v: want none alone and a significant pooled test", c.Regressions(), c.Pooled)
	}
	if math.Abs(c.Pooled.P-1.0/256) > 1e-12 || c.Count(Changed) != 8 || c.Comparable != 10 {
		t.Errorf("pooled p %v (want 1/256), changed %d, comparable %d", c.Pooled.P, c.Count(Changed), c.Comparable)
	}
	// Two flips are not enough, even together.
	c = Compare(runOf(base...), runOf(append(head[:0:0], single("a", 0, result.Fail), single("b", 0, result.Fail))...), Options{})
	if c.PooledRegression() || c.Regressions() != 0 {
		t.Errorf("two flips: pooled %+v", c.Pooled)
	}
}

func TestNothingComparable(t *testing.T) {
	t.Parallel()
	head := runOf(single("a", 1, result.Pass), single("b", 0.9, result.Pass))
	tests := []struct {
		name string
		base *result.Run
	}{
		{"every base test errored", runOf(single("a", 0, result.Error), single("b", 0, result.Error))},
		{"no test in common", runOf(single("x", 1, result.Pass))},
		{"empty base", &result.Run{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Compare(tc.base, head, Options{})
			if !c.NothingComparable() || c.Pooled != nil || c.Regressions() != 0 || len(c.Warnings) == 0 ||
				!strings.HasPrefix(c.Warnings[0], "nothing comparable") {
				t.Errorf("comparable %d, pooled %+v, warnings %q", c.Comparable, c.Pooled, c.Warnings)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	base := runOf(trials("a", "pass_at_k", 0, 1), trials("b", "mean", 1, 1, 1))
	head := runOf(trials("a", "pass_at_k", 1), trials("b", "mean", 1, 1))
	head.Suites[0].Tests[0].TrialSummary.Count = 3 // stopped at its first pass
	c := Compare(base, head, Options{})
	got := strings.Join(c.Warnings, "\n")
	for _, want := range []string{"1 test uses pass_at_k", "2 of 2 tests ran a different number of trials on each side (e.g. base 2, head 1)"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q, want %q", got, want)
		}
	}
}

func TestCriteria(t *testing.T) {
	t.Parallel()
	withCrit := func(passed, total int) *result.TestResult {
		tr := trials("t", "mean", 1, 1, 1, 1, 1)
		tr.TrialSummary.Criteria = []*result.CriterionTrials{{Grader: "rubrics", Criterion: "tests-pass", Passed: passed, Total: total}}
		tr.Graders = []*result.GraderResult{{Name: "rubrics", Criteria: []*result.CriterionResult{{ID: "tests-pass", Verdict: result.Pass, Score: 1}}},
			{Name: "suite", Type: "composite", Members: []*result.GraderResult{{Name: "contains", Verdict: result.Pass, Score: 1}}}}
		return tr
	}
	c := Compare(runOf(withCrit(10, 10)), runOf(withCrit(0, 10)), Options{})
	d := c.Test("s", "t")
	if cd := d.Criterion("rubrics", "tests-pass"); cd == nil || cd.Change != Regression || cd.BaseN != 10 || cd.Method != MethodBoschloo {
		t.Errorf("criterion %+v, want a regression over its trial pass counts", cd)
	}
	if cd := d.Criterion("suite › contains", ""); cd == nil || cd.Change != Unchanged {
		t.Errorf("composite member %+v, want paired by its path and unchanged", cd)
	}
	if c.Regressions() != 0 {
		t.Errorf("criteria never count: %d regressions", c.Regressions())
	}
}

func TestCompareEdges(t *testing.T) {
	t.Parallel()
	run := runOf(single("a", 1, result.Pass), single("a", 0.5, result.Fail))
	c := Compare(nil, run, Options{Alpha: 2, Noise: math.NaN()})
	if c.Alpha != DefaultAlpha || c.Noise != DefaultNoise || c.Count(Added) != 2 {
		t.Errorf("alpha %v noise %v added %d", c.Alpha, c.Noise, c.Count(Added))
	}
	if c := Compare(run, nil, Options{Alpha: 0.01}); c.Alpha != 0.01 || c.Count(Removed) != 2 {
		t.Errorf("alpha %v removed %d", c.Alpha, c.Count(Removed))
	}
	// Duplicate ids pair in order.
	c = Compare(run, runOf(single("a", 1, result.Pass), single("a", 0.5, result.Fail)), Options{})
	if len(c.Tests) != 2 || c.Comparable != 2 || *c.Tests[0].Delta != 0 || *c.Tests[1].Delta != 0 {
		t.Errorf("duplicate ids: %+v", c.Tests)
	}
	var nilCmp *Comparison
	if nilCmp.Regressions() != 0 || nilCmp.Test("a", "b") != nil || nilCmp.PooledRegression() || nilCmp.NothingComparable() {
		t.Error("a nil *Comparison must read as empty")
	}
}

// TestCompareImpossibleTrialCount: a results file claiming more trials per criterion than any
// run has is compared without allocating for them.
func TestCompareImpossibleTrialCount(t *testing.T) {
	t.Parallel()
	huge := func() *result.TestResult {
		tr := trials("t", "mean", 1, 1)
		tr.TrialSummary.Criteria = []*result.CriterionTrials{{Grader: "g", Criterion: "c", Total: 1 << 40, Passed: 1 << 40}}
		return tr
	}
	c := Compare(runOf(huge()), runOf(huge()), Options{Alpha: 0.05})
	if d := c.Test("s", "t"); d == nil || d.Change != Unchanged {
		t.Fatalf("delta %+v, want an unchanged test", d)
	}
}

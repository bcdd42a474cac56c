package reports

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// The intervals were computed by hand (python3) with Welch's formula and AgentV's t table.
func TestDecide(t *testing.T) {
	t.Parallel()
	P, B, F := result.Pass, result.Borderline, result.Fail
	five := func(xs ...float64) []float64 { return xs }
	tests := []struct {
		name       string
		base, head result.Verdict
		bs, hs     float64
		bsamp      []float64
		hsamp      []float64
		want       Change
		method     string
		delta      float64
		lo, hi     float64
	}{
		{"significant drop", P, B, 0.88, 0.68, five(0.9, 0.8, 0.85, 0.95, 0.9), five(0.6, 0.7, 0.65, 0.75, 0.7),
			Regression, MethodWelch, -0.2, -0.283144, -0.116856},
		{"significant rise", B, P, 0.68, 0.88, five(0.6, 0.7, 0.65, 0.75, 0.7), five(0.9, 0.8, 0.85, 0.95, 0.9),
			Improvement, MethodWelch, 0.2, 0.116856, 0.283144},
		{"noisy drop beyond noise spans zero", P, F, 0.85, 0.73, five(0.9, 0.8, 0.85), five(0.6, 0.9, 0.7),
			Unchanged, MethodWelch, -0.116667, -0.515968, 0.282635},
		{"pass rate 1 to 3/5 is not significant", P, F, 1, 0.6, five(1, 1, 1), five(0, 1, 1, 0, 1),
			Unchanged, MethodWelch, -0.4, -1, 0.279978}, // clamped from -1.079978,
		{"significant but below noise", P, P, 0.9, 0.85, five(0.9, 0.9, 0.9), five(0.85, 0.85, 0.85),
			Unchanged, MethodWelch, -0.05, -0.05, -0.05},
		{"zero variance both sides is exact", P, B, 0.8, 0.5, five(0.8, 0.8), five(0.5, 0.5),
			Regression, MethodWelch, -0.3, -0.3, -0.3},
		{"zero variance, drop of exactly noise", P, B, 0.9, 0.8, five(0.9, 0.9), five(0.8, 0.8),
			Regression, MethodWelch, -0.1, -0.1, -0.1},
		{"one trial on a side keeps the threshold", P, F, 0.9, 0.3, five(0.9), five(0.3, 0.3),
			Regression, MethodThreshold, -0.6, math.NaN(), math.NaN()},
		{"single samples keep the crossing rule", P, F, 0.82, 0.79, nil, nil,
			Regression, MethodThreshold, -0.03, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, ch, sp := decide(tc.base, tc.head, tc.bs, tc.hs, DefaultNoise, tc.bsamp, tc.hsamp)
			if ch != tc.want || sp.Method != tc.method {
				t.Errorf("change %s by %q, want %s by %q", ch, sp.Method, tc.want, tc.method)
			}
			if d == nil || math.Abs(*d-tc.delta) > 1e-4 {
				t.Errorf("delta = %v, want %v", d, tc.delta)
			}
			if math.IsNaN(tc.lo) {
				if sp.CILow != nil || sp.CIHigh != nil {
					t.Errorf("interval %v..%v under the threshold method, want none", *sp.CILow, *sp.CIHigh)
				}
				return
			}
			if sp.CILow == nil || sp.CIHigh == nil || math.Abs(*sp.CILow-tc.lo) > 1e-4 || math.Abs(*sp.CIHigh-tc.hi) > 1e-4 {
				t.Errorf("interval = %v..%v, want %v..%v", sp.CILow, sp.CIHigh, tc.lo, tc.hi)
			}
		})
	}
}

// trialTest is a test run once per score, with one rubric criterion passing in passed trials.
func trialTest(id string, verdict result.Verdict, passed int, scores ...float64) *result.TestResult {
	t := &result.TestResult{Suite: "s", ID: id, Verdict: verdict, Score: scores[0],
		Graders: []*result.GraderResult{{Name: "rubrics", Type: "rubrics", Weight: 1, Score: scores[0], Verdict: verdict,
			Criteria: []*result.CriterionResult{{ID: "correct", Weight: 1, Score: scores[0], Verdict: verdict}}}}}
	if len(scores) < 2 {
		return t
	}
	for i, s := range scores {
		t.Trials = append(t.Trials, &result.TrialResult{Trial: i + 1, Score: s, Verdict: verdict})
	}
	t.TrialSummary = &result.Trials{Strategy: "mean", Count: len(scores), Ran: len(scores),
		Criteria: []*result.CriterionTrials{{Grader: "rubrics", Criterion: "correct", Passed: passed, Total: len(scores)}}}
	return t
}

func trialRun(tests ...*result.TestResult) *result.Run {
	return &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{{Name: "s", Tests: tests}}}
}

// TestCompareTrials compares runs with trials: a significant drop regresses, a noisy one with
// a crossed verdict does not, a single-run test keeps the threshold; the criteria compare
// their per-trial pass rates; the JSON and the Markdown carry the interval.
func TestCompareTrials(t *testing.T) {
	t.Parallel()
	base := trialRun(
		trialTest("real", result.Pass, 5, 0.9, 0.8, 0.85, 0.95, 0.9),
		trialTest("noisy", result.Pass, 3, 0.9, 0.8, 0.85),
		trialTest("single", result.Pass, 1, 0.9),
	)
	head := trialRun(
		trialTest("real", result.Fail, 0, 0.6, 0.7, 0.65, 0.75, 0.7),
		trialTest("noisy", result.Fail, 2, 0.6, 0.9, 0.7),
		trialTest("single", result.Fail, 0, 0.7),
	)
	c := Compare(base, head, 0)
	want := map[string]struct {
		ch, crit Change
		method   string
	}{
		"real":   {Regression, Regression, MethodWelch},
		"noisy":  {Unchanged, Unchanged, MethodWelch},
		"single": {Regression, Regression, MethodThreshold},
	}
	for id, w := range want {
		d := c.Test("s", id)
		cd := d.Criterion("rubrics", "correct")
		if d.Change != w.ch || d.Method != w.method || cd == nil || cd.Change != w.crit || cd.Method != w.method {
			t.Errorf("%s: test %s by %q, criterion %+v; want %s/%s by %q", id, d.Change, d.Method, cd, w.ch, w.crit, w.method)
		}
	}
	if n := c.Regressions(); n != 2 {
		t.Errorf("Regressions() = %d, want 2 (real, single)", n)
	}
	raw, err := json.Marshal(c.Test("s", "real"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"ci_low":-0.283`, `"ci_high":-0.116`, `"method":"welch-t"`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("JSON %s lacks %s", raw, s)
		}
	}
	if got, want := testDeltaCell(c.Test("s", "real")), "⬇️ -0.20 [-0.28, -0.12]"; got != want {
		t.Errorf("delta cell %q, want %q", got, want)
	}
	if got, want := testDeltaCell(c.Test("s", "single")), "⬇️ -0.20"; got != want {
		t.Errorf("delta cell %q, want %q", got, want)
	}
	md := NewReport(head, c).Comment(CommentOptions{})
	if want := "(-0.20 over trials, 95 % CI [-0.28, -0.12])"; !strings.Contains(md, want) {
		t.Errorf("the regression list lacks %q:\n%s", want, md)
	}
}

// sampled is trialTest with the judge asked once per score: the criterion's agreement keeps
// the sample scores.
func sampled(id string, t *result.TestResult, scores ...float64) *result.TestResult {
	t.ID = id
	t.Graders[0].Criteria[0].Agreement = &result.Agreement{Samples: len(scores), Scores: scores}
	return t
}

// TestCompareJudgeSamples decides criteria without trials over their judge samples: a
// significant drop regresses, a noisy one does not; trials, when both sides have them, win;
// samples on one side only keep the threshold.
func TestCompareJudgeSamples(t *testing.T) {
	t.Parallel()
	P, F := result.Pass, result.Fail
	tests := []struct {
		name       string
		base, head *result.TestResult
		want       Change
		method     string
		delta      float64
		lo, hi     float64
	}{
		{"significant drop over samples",
			sampled("c", trialTest("", P, 0, 0.85), 0.9, 0.8, 0.85),
			sampled("c", trialTest("", result.Borderline, 0, 0.65), 0.6, 0.7, 0.65),
			Regression, MethodWelch, -0.2, -0.31333, -0.08667},
		{"noisy drop with a crossed verdict",
			sampled("c", trialTest("", P, 0, 0.85), 0.9, 0.8, 0.85),
			sampled("c", trialTest("", F, 0, 0.7), 0.6, 0.9, 0.7),
			Unchanged, MethodWelch, -0.116667, -0.515968, 0.282635},
		{"trials on both sides win over samples",
			sampled("c", trialTest("", P, 3, 0.9, 0.9, 0.9), 0.9, 0.8, 0.85),
			sampled("c", trialTest("", P, 3, 0.9, 0.9, 0.9), 0.6, 0.7, 0.65),
			Unchanged, MethodWelch, 0, 0, 0},
		{"samples on one side keep the threshold",
			sampled("c", trialTest("", P, 0, 0.85), 0.9, 0.8, 0.85),
			trialTest("c", P, 0, 0.8),
			Unchanged, MethodThreshold, -0.05, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cd := Compare(trialRun(tc.base), trialRun(tc.head), 0).Test("s", "c").Criterion("rubrics", "correct")
			if cd == nil || cd.Change != tc.want || cd.Method != tc.method {
				t.Fatalf("criterion %+v, want %s by %q", cd, tc.want, tc.method)
			}
			if cd.Delta == nil || math.Abs(*cd.Delta-tc.delta) > 1e-4 {
				t.Errorf("delta = %v, want %v", cd.Delta, tc.delta)
			}
			if math.IsNaN(tc.lo) {
				if cd.CILow != nil {
					t.Errorf("interval under the threshold method")
				}
				return
			}
			if cd.CILow == nil || cd.CIHigh == nil || math.Abs(*cd.CILow-tc.lo) > 1e-4 || math.Abs(*cd.CIHigh-tc.hi) > 1e-4 {
				t.Errorf("interval = %v..%v, want %v..%v", cd.CILow, cd.CIHigh, tc.lo, tc.hi)
			}
		})
	}
}

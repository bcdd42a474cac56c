package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// seeded is a script of n answers that pass (0.9) with probability p and fail (0.1)
// otherwise, drawn from a fixed seed.
func seeded(seed uint64, p float64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		out[i] = "0.1"
		if rng.Float64() < p {
			out[i] = "0.9"
		}
	}
	return out
}

func outcomes(pass, n int) []bool {
	out := make([]bool, n)
	for i := range pass {
		out[i] = true
	}
	return out
}

func TestAdaptiveTrialsAgainstABaseline(t *testing.T) {
	t.Parallel()
	script := map[string][]string{
		"steady":    {"0.9"},            // passes like the base: decided after one trial
		"collapsed": {"0.1"},            // 0.9 → 0: more trials until significant
		"first-ok":  {"0.9", "0.1"},     // a pass first: no worse than the base so far
		"low-base":  {"0.1"},            // the base passed 3/10: 0/10 could not be significant
		"noisy":     seeded(3, 0.9, 10), // a seeded agent at the base's rate
		"new":       {"0.9"},            // not in the baseline: the pass threshold decides
		"new-fails": {"0.1"},
	}
	base := map[BaseKey][]bool{
		{"s", "steady"}:    outcomes(9, 10),
		{"s", "collapsed"}: outcomes(10, 10),
		{"s", "first-ok"}:  outcomes(9, 10),
		{"s", "low-base"}:  outcomes(3, 10),
		{"s", "noisy"}:     outcomes(9, 10),
		{"s", "gone"}:      outcomes(9, 10), // removed on the head: not a test of this run
	}
	got, tg, _ := runScript(t, &suite.Trials{Count: 1, Strategy: suite.TrialsPassAtK}, script, 0, func(c *Config) {
		c.MaxTrials, c.Baseline = 10, base
	})
	for _, tc := range []struct {
		id     string
		reason string
		ran    int // 0: checked below
	}{
		{"steady", result.StopNotWorse, 1},
		{"collapsed", result.StopRegression, 0},
		{"first-ok", result.StopNotWorse, 1},
		{"low-base", result.StopCannotBeSignificant, 1},
		{"noisy", "", 0},
		{"new", result.StopDecidedPass, 1},
		{"new-fails", result.StopDecidedFail, 0},
	} {
		tr := got[tc.id]
		s := tr.TrialSummary
		if s == nil {
			t.Fatalf("%s: no trial summary", tc.id)
		}
		if (tc.reason != "" && s.StopReason != tc.reason) || (tc.ran > 0 && s.Ran != tc.ran) || len(tg.calls[tc.id]) != s.Ran || s.MaxTrials != 10 || s.Count != 1 || s.Stopped == "" {
			t.Errorf("%s: ran %d (%d calls) of max %d, stopped %s: %q; want %s after %d", tc.id, s.Ran, len(tg.calls[tc.id]), s.MaxTrials, s.StopReason, s.Stopped, tc.reason, tc.ran)
		}
		_, inBase := base[BaseKey{"s", tc.id}]
		if inBase != (s.PValue != nil && s.Boundary != nil && s.Level != nil && s.BaseRan == 10) || inBase == (s.RateLow != nil) {
			t.Errorf("%s: base %v but p %v boundary %v level %v base %d, interval %v", tc.id, inBase, s.PValue, s.Boundary, s.Level, s.BaseRan, s.RateLow)
		}
		if s.Level != nil && *s.Level != 0.05/5 {
			t.Errorf("%s: level %g, want 0.05 over the 5 compared tests", tc.id, *s.Level)
		}
	}
	c := got["collapsed"].TrialSummary
	if c.Ran < 2 || c.Ran > 10 || *c.PValue > *c.Boundary || c.Passed != 0 || !strings.Contains(c.Stopped, "regression significant") {
		t.Errorf("collapsed: %+v", c)
	}
	if n := got["noisy"].TrialSummary; n.StopReason == result.StopRegression || n.StopReason == "" {
		t.Errorf("noisy: an unchanged test stopped as %q: %q", n.StopReason, n.Stopped)
	}
	// Without a baseline, 0 passes of n rule out a pass rate of 0.8 (Clopper-Pearson, each
	// look at 5 %/10) from n = 4 on.
	if f := got["new-fails"].TrialSummary; f.Ran != 4 || *f.RateHigh >= 0.8 || *f.RateThreshold != 0.8 || got["new-fails"].Verdict != result.Fail {
		t.Errorf("new-fails: %+v", f)
	}
}

func TestAdaptiveTrialsWithoutABaseline(t *testing.T) {
	t.Parallel()
	script := map[string][]string{"good": {"1"}, "bad": {"0"}, "mid": {"0.8", "0.7"}}
	// mean: a Hoeffding interval for the mean score, each look at 5 %/(max − count + 1).
	// A pass threshold of 0.5: Hoeffding's interval is wide, it could not rule out 0.8 within
	// 20 trials even for perfect scores.
	got, tg, _ := runScript(t, &suite.Trials{Count: 2, Max: 20, Strategy: suite.TrialsMean}, script, 0, func(c *Config) {
		c.Thresholds = result.Thresholds{Pass: 0.5, Borderline: 0.4}
	})
	for id, want := range map[string]string{"good": result.StopDecidedPass, "bad": result.StopDecidedFail, "mid": result.StopMaxTrials} {
		s := got[id].TrialSummary
		if s.StopReason != want || s.Ran < 2 || len(tg.calls[id]) != s.Ran || s.RateLow == nil || s.PValue != nil {
			t.Errorf("%s: ran %d, stopped %s: %q; want %s", id, s.Ran, s.StopReason, s.Stopped, want)
		}
	}
	// √(ln(2·19/0.05) / 2n) ≤ 0.5 from n = 14 on.
	if s := got["good"].TrialSummary; s.Ran != 14 || *s.RateLow < 0.5 || got["bad"].TrialSummary.Ran != 14 {
		t.Errorf("good: %+v", s)
	}
	if s := got["mid"].TrialSummary; s.Ran != 20 {
		t.Errorf("mid: ran %d, want max", s.Ran)
	}
}

func TestAdaptiveTrialsStopOnMoney(t *testing.T) {
	t.Parallel()
	script := map[string][]string{"a": {"0.1"}}
	base := map[BaseKey][]bool{{"s", "a"}: outcomes(5, 10)}
	// 0/n vs 5/10 is significant at no n ≤ 10 here, but the money runs out first.
	got, _, _ := runScript(t, &suite.Trials{Count: 3, Max: 10, Strategy: suite.TrialsMean, CostLimitUSD: 0.25}, script, 0.1, func(c *Config) {
		c.Baseline = base
		c.MaxTrials = 0 // the suite's max
	})
	if s := got["a"].TrialSummary; s.StopReason != result.StopCostLimit || !s.CostLimited || s.Ran != 3 {
		t.Errorf("cost limit: %+v", s)
	}
	got, _, _ = runScript(t, &suite.Trials{Count: 1, Strategy: suite.TrialsMean}, script, 0.1, func(c *Config) {
		c.MaxTrials, c.BudgetUSD = 10, 0.15
	})
	if s := got["a"].TrialSummary; s.StopReason != result.StopBudget || s.Ran != 2 || s.MaxTrials != 10 {
		t.Errorf("budget: %+v", s)
	}
	// --max-trials at or below the count: fixed trials, as before.
	got, tg, _ := runScript(t, &suite.Trials{Count: 2, Strategy: suite.TrialsMean}, script, 0, func(c *Config) { c.MaxTrials = 2 })
	if s := got["a"].TrialSummary; s.MaxTrials != 0 || s.StopReason != "" || s.Ran != 2 || len(tg.calls["a"]) != 2 {
		t.Errorf("max = count: %+v", s)
	}
}

func TestBaseOutcomes(t *testing.T) {
	t.Parallel()
	run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Tests: []*result.TestResult{
		{ID: "a", Verdict: result.Pass},
		{ID: "m", Target: "x", Matrix: true, Verdict: result.Fail, Trials: []*result.TrialResult{{Verdict: result.Fail}, {Verdict: result.Pass}}},
		{ID: "e", Verdict: result.Error},
		{ID: "k", Verdict: result.Skip},
	}}, nil}}
	got := BaseOutcomes(run)
	if len(got) != 2 || len(got[BaseKey{"s", "a"}]) != 1 || !got[BaseKey{"s", "a"}][0] || len(got[BaseKey{"s", "m@x"}]) != 2 {
		t.Errorf("BaseOutcomes: %v", got)
	}
	if BaseOutcomes(nil) != nil {
		t.Error("no base run: outcomes")
	}
}

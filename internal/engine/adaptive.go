package engine

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/stats"
	"github.com/evalgate/evalgate/internal/suite"
)

// defaultRegressionAlpha is the family-wise level of adaptive trials' regression tests when
// Config.RegressionAlpha is 0.
const defaultRegressionAlpha = 0.05

// BaseKey names a test across runs: its suite and its label (the id, "@target" in a matrix).
type BaseKey struct{ Suite, Test string }

// BaseOutcomes is what adaptive trials need of a base run: per test, whether each of its
// trials passed (result.TestResult.Outcomes). Tests with nothing to compare are left out.
func BaseOutcomes(base *result.Run) map[BaseKey][]bool {
	if base == nil {
		return nil
	}
	out := map[BaseKey][]bool{}
	for _, s := range base.Suites {
		if s == nil {
			continue
		}
		for _, t := range s.Tests {
			if o := t.Outcomes(); o != nil {
				out[BaseKey{s.Name, t.Label()}] = o
			}
		}
	}
	return out
}

// adaptive is a run's shared state for adaptive trials: the designs calibrated so far and
// each compared test's share of the family-wise level.
type adaptive struct {
	base    map[BaseKey][]bool
	level   float64 // Bonferroni: RegressionAlpha over the run's compared tests
	alpha   float64 // the family-wise level; without a baseline, per test across its looks
	designs stats.Designs
}

// newAdaptive counts the run's tests that have a base to compare with: the regression tests
// of adaptive trials share the family-wise level among them.
func newAdaptive(cfg Config, jobs []*job) *adaptive {
	a := &adaptive{base: cfg.Baseline, alpha: cfg.RegressionAlpha}
	if a.alpha <= 0 || a.alpha >= 1 {
		a.alpha = defaultRegressionAlpha
	}
	m := 0
	for _, j := range jobs {
		if len(a.base[j.key()]) > 0 {
			m++
		}
	}
	if m > 0 {
		a.level = a.alpha / float64(m)
	}
	return a
}

// key is the job's test as a base run names it.
func (j *job) key() BaseKey {
	if j.target != "" {
		return BaseKey{j.s.Name, j.t.ID + "@" + j.target}
	}
	return BaseKey{j.s.Name, j.t.ID}
}

// sequential decides, after each trial of one test, whether its adaptive trials go on.
type sequential struct {
	spec   suite.Trials
	pass   float64 // the pass threshold
	design *stats.Design
	baseN  int
	baseOK int // base trials that passed
	// looks is the number of looks without a baseline: each gets an equal share of alpha.
	looks int
	alpha float64
	sum   *result.Trials // the last look's numbers, for the summary
}

// start is the sequential rule of one test, or nil when its trials are not adaptive.
func (a *adaptive) start(spec suite.Trials, key BaseKey, pass float64) *sequential {
	if spec.Max <= spec.Count {
		return nil
	}
	sq := &sequential{spec: spec, pass: pass, looks: spec.Max - spec.Count + 1, alpha: a.alpha, sum: &result.Trials{}}
	if base := a.base[key]; len(base) > 0 && a.level > 0 {
		sq.baseN = len(base)
		for _, ok := range base {
			if ok {
				sq.baseOK++
			}
		}
		sq.design = a.designs.For(stats.Plan{BaseN: sq.baseN, Count: spec.Count, Max: spec.Max, Level: a.level})
		sq.sum.BaseRan, sq.sum.BasePassed, sq.sum.Level = sq.baseN, sq.baseOK, &a.level
	}
	return sq
}

// look is the rule's answer after the trials so far: a stop reason and why in words, or ""
// to go on. Before count trials it goes on, except that a pass_at_k pass decides a test
// without a baseline, as it does with fixed trials.
func (sq *sequential) look(runs []*result.TestResult) (reason, why string) {
	n, h := len(runs), 0
	for _, r := range runs {
		if r.Verdict == result.Pass {
			h++
		}
	}
	if sq.design != nil {
		return sq.compare(n, h)
	}
	if sq.spec.Strategy == suite.TrialsPassAtK {
		lo, hi := stats.ClopperPearson(h, n, sq.alpha/float64(sq.looks))
		if h > 0 {
			sq.sum.RateLow, sq.sum.RateHigh, sq.sum.RateThreshold = &lo, &hi, &sq.pass
			return result.StopDecidedPass, fmt.Sprintf("decided pass: pass_at_k passes with a passing trial (%d/%d)", h, n)
		}
		if n < sq.spec.Count {
			return "", ""
		}
		return sq.threshold(n, lo, hi, fmt.Sprintf("pass rate %d/%d", h, n))
	}
	if n < sq.spec.Count {
		return "", ""
	}
	mean := 0.0
	for _, r := range runs {
		mean += trialScore(r)
	}
	mean /= float64(n)
	lo, hi := stats.Hoeffding(mean, n, sq.alpha/float64(sq.looks))
	return sq.threshold(n, lo, hi, fmt.Sprintf("mean score %.2f", mean))
}

// compare is a look of the regression test against the base.
func (sq *sequential) compare(n, h int) (reason, why string) {
	step, p := sq.design.Look(sq.baseOK, n, h)
	if n < sq.spec.Count {
		return "", ""
	}
	c := sq.design.Boundary
	sq.sum.PValue, sq.sum.Boundary = &p, &c
	what := fmt.Sprintf("head %d/%d vs base %d/%d passed, p = %.4f, significant at ≤ %.4f", h, n, sq.baseOK, sq.baseN, p, sq.design.Boundary)
	switch {
	case step == stats.Reject:
		return result.StopRegression, "regression significant: " + what
	case step == stats.NoWorse:
		return result.StopNotWorse, "not worse than the base: " + what
	case n >= sq.spec.Max:
		return result.StopMaxTrials, "max trials: " + what
	case step == stats.Futile:
		return result.StopCannotBeSignificant, "cannot become significant within max trials: " + what
	}
	return "", ""
}

// threshold decides a look without a baseline from the interval [lo, hi] for the test's
// pass rate or mean score, each look at level alpha/looks so that the looks together err
// with at most alpha.
func (sq *sequential) threshold(n int, lo, hi float64, what string) (reason, why string) {
	sq.sum.RateLow, sq.sum.RateHigh, sq.sum.RateThreshold = &lo, &hi, &sq.pass
	what = fmt.Sprintf("%s, interval [%.2f, %.2f] vs pass threshold %.2f", what, lo, hi, sq.pass)
	switch {
	case lo >= sq.pass:
		return result.StopDecidedPass, "decided pass: " + what
	case hi < sq.pass:
		return result.StopDecidedFail, "decided fail: " + what
	case n >= sq.spec.Max:
		return result.StopMaxTrials, "max trials, undecided: " + what
	}
	return "", ""
}

// record copies the rule's last look into a test's trial summary.
func (sq *sequential) record(sum *result.Trials) {
	sum.MaxTrials = sq.spec.Max
	sum.BaseRan, sum.BasePassed, sum.Level = sq.sum.BaseRan, sq.sum.BasePassed, sq.sum.Level
	sum.PValue, sum.Boundary = sq.sum.PValue, sq.sum.Boundary
	sum.RateLow, sum.RateHigh, sum.RateThreshold = sq.sum.RateLow, sq.sum.RateHigh, sq.sum.RateThreshold
}

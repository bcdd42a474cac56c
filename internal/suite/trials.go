package suite

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Trial strategies (AgentV's execution.trials.strategy).
const (
	// TrialsPassAtK passes a test when any trial passes; its score is the best trial's.
	TrialsPassAtK = "pass_at_k"
	// TrialsMean scores a test by the mean of its trials' scores.
	TrialsMean = "mean"
	// TrialsConfidenceInterval scores a test by the lower bound of the 95 % t-interval of
	// its trials' mean score.
	TrialsConfidenceInterval = "confidence_interval"
)

// MaxTrials bounds execution.trials.count and --trials: a typo of 1000 would otherwise run
// the agent a thousand times per test.
const MaxTrials = 100

// Trials is execution.trials: how many times each test runs and how the runs combine.
type Trials struct {
	// Count is the number of trials per test (1 = trials off).
	Count int
	// Strategy is one of TrialsPassAtK (the default), TrialsMean, TrialsConfidenceInterval.
	Strategy string
	// CostLimitUSD stops a test's further trials once they have cost this much; 0 = none.
	CostLimitUSD float64
	// Max, when above Count, turns on adaptive trials (evalgate's own key): after Count
	// trials a test runs more, up to Max, while its outcome is undecided (docs/adaptive-trials.md).
	// 0 = Count.
	Max int
	// Pos is where the trials key is written.
	Pos Pos `json:"-"`
}

var trialsKeys = []string{"count", "strategy", "cost_limit_usd", "costLimitUsd", "max"}

// trials reads execution.trials. AgentV warns about and ignores a bad value; evalgate
// refuses it, because a suite meant to run five times that silently runs once gates on
// one noisy sample.
func (r *reader) trials(n *yaml.Node) *Trials {
	f, ok := r.fields(n, "execution.trials", trialsKeys...)
	if !ok {
		return nil
	}
	tr := &Trials{Count: 1, Strategy: TrialsPassAtK}
	if c, ok := f["count"]; ok && !isNull(c) {
		if v, ok := r.integer(scope{}, c, "execution.trials.count"); ok {
			if v < 1 || v > MaxTrials {
				r.errorf(c, "execution.trials.count must be between 1 and %d, not %d", MaxTrials, v)
			} else {
				tr.Count = v
			}
		}
	} else if r.opts.Trials == 0 {
		r.errorf(resolve(n), "execution.trials needs a count (the number of times each test runs), e.g. trials: {count: 3}, or pass --trials N")
	}
	if s, ok := f["strategy"]; ok && !isNull(s) {
		switch v := strings.TrimSpace(r.optStr(scope{}, f, "strategy", "execution.trials")); v {
		case TrialsPassAtK, TrialsMean, TrialsConfidenceInterval:
			tr.Strategy = v
		default:
			r.errorf(s, "execution.trials.strategy must be pass_at_k, mean or confidence_interval, not %q", v)
		}
	}
	key := "cost_limit_usd"
	if _, ok := f[key]; !ok {
		key = "costLimitUsd"
	}
	if c, ok := f[key]; ok && !isNull(c) {
		if v, ok := r.num(scope{}, c, "execution.trials."+key); ok {
			if v <= 0 {
				r.errorf(c, "execution.trials.%s must be a positive amount in US dollars, not %v (leave it out for no limit)", key, v)
			} else {
				tr.CostLimitUSD = v
			}
		}
	}
	if m, ok := f["max"]; ok && !isNull(m) {
		r.trialsMax(m, tr)
	}
	return tr
}

// trialsMax reads execution.trials.max into tr, whose Count is read.
func (r *reader) trialsMax(n *yaml.Node, tr *Trials) {
	v, ok := r.integer(scope{}, n, "execution.trials.max")
	switch {
	case !ok:
	case v < 1 || v > MaxTrials:
		r.errorf(n, "execution.trials.max must be between 1 and %d, not %d", MaxTrials, v)
	case v < tr.Count:
		r.errorf(n, "execution.trials.max (%d) must not be below execution.trials.count (%d): count trials always run, max bounds the adaptive ones", v, tr.Count)
	default:
		tr.Max = v
	}
}

// TrialsWith is how often the tests of s run and how the runs combine: its execution.trials,
// with count (--trials, 0 = none) overriding its count and maxTrials (--max-trials) its max. A
// Trials built in code may leave Count at 0; every test still runs once. A max below the
// count means no adaptive trials: count trials always run.
func (s *Suite) TrialsWith(count, maxTrials int) Trials {
	spec := Trials{Count: 1, Strategy: TrialsPassAtK}
	if s.Trials != nil {
		spec = *s.Trials
	}
	if count > 0 {
		spec.Count = count
	}
	if maxTrials > 0 {
		spec.Max = maxTrials
	}
	spec.Count = max(spec.Count, 1)
	spec.Max = max(spec.Max, spec.Count)
	return spec
}

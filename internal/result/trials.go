package result

// TrialResult is one trial of a test run more than once (execution.trials, --trials): a
// full target run in a fresh workspace, graded on its own.
type TrialResult struct {
	// Trial is the 1-based trial number.
	Trial   int     `json:"trial"`
	Score   float64 `json:"score"`
	Verdict Verdict `json:"verdict"`
	// Gates lists why a required criterion or grader failed this trial.
	Gates        []string `json:"gates,omitempty"`
	Error        string   `json:"error,omitempty"`
	FailureStage string   `json:"failure_stage,omitempty"`
	CostUSD      float64  `json:"cost_usd,omitempty"`
	DurationMS   int64    `json:"duration_ms"`
	// Workspace is the trial's kept workspace, when one was kept.
	Workspace string `json:"workspace,omitempty"`
}

// Trials is how a test's trials combine into its score and verdict.
type Trials struct {
	// Strategy is pass_at_k, mean or confidence_interval.
	Strategy string `json:"strategy"`
	// Count is the number of trials asked for; Ran how many ran, Passed how many passed.
	Count  int `json:"count"`
	Ran    int `json:"ran"`
	Passed int `json:"passed"`
	// Mean, Min and Max are over the trials' scores (an error trial scores 0).
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	// StdDev and the 95 % t-interval of the mean (clamped to [0, 1]), for confidence_interval.
	StdDev    *float64 `json:"stddev,omitempty"`
	CI95Lower *float64 `json:"ci95_lower,omitempty"`
	CI95Upper *float64 `json:"ci95_upper,omitempty"`
	// Flaky is true when some trials passed and some did not.
	Flaky bool `json:"flaky,omitempty"`
	// Stopped says why fewer than Count trials ran ("" when all ran).
	Stopped string `json:"stopped,omitempty"`
	// CostLimited is true when cost_limit_usd stopped the trials (AgentV's costLimited).
	CostLimited bool `json:"cost_limited,omitempty"`
	// Criteria is the pass rate of each grader and rubric criterion across the trials.
	Criteria []*CriterionTrials `json:"criteria,omitempty"`

	// Adaptive trials (execution.trials.max above count; docs/adaptive-trials.md).

	// MaxTrials is the most trials the test could run; 0 when trials were not adaptive.
	MaxTrials int `json:"max_trials,omitempty"`
	// StopReason says, as one of the Stop… codes, why the test ran Ran trials: set for
	// adaptive trials, and for fixed ones cut short by the budget, the cost limit or the run.
	StopReason string `json:"stop_reason,omitempty"`
	// BaseRan and BasePassed are the base run's trials of this test the head was compared
	// with; both 0 without a baseline for it.
	BaseRan    int `json:"base_ran,omitempty"`
	BasePassed int `json:"base_passed,omitempty"`
	// PValue is Fisher's one-sided p-value of "the head passes less often than the base"
	// at the last look, and Boundary the calibrated value it was compared with (a regression
	// is significant when PValue ≤ Boundary). Level is the test's share of the family-wise
	// level (regression_alpha / the run's compared tests) that Boundary was calibrated for.
	// nil without a baseline.
	PValue   *float64 `json:"p_value,omitempty"`
	Boundary *float64 `json:"boundary,omitempty"`
	Level    *float64 `json:"level,omitempty"`
	// RateLow and RateHigh are, without a baseline, the confidence interval at the last look
	// for the test's pass rate (Clopper-Pearson, pass_at_k) or mean score (Hoeffding, mean
	// and confidence_interval) that was compared with Threshold.
	RateLow       *float64 `json:"rate_low,omitempty"`
	RateHigh      *float64 `json:"rate_high,omitempty"`
	RateThreshold *float64 `json:"rate_threshold,omitempty"`
}

// The reasons a test's trials stopped (Trials.StopReason).
const (
	// StopRegression: the head is significantly worse than the base (adaptive, baseline).
	StopRegression = "regression_significant"
	// StopCannotBeSignificant: even failing every remaining trial up to max could not make
	// the regression significant.
	StopCannotBeSignificant = "cannot_become_significant"
	// StopNotWorse: the head has passed at least as often as the base so far.
	StopNotWorse = "not_worse_than_base"
	// StopDecidedPass and StopDecidedFail: without a baseline, the interval for the pass rate
	// (or mean score) lies above, or below, the pass threshold; or a pass_at_k pass.
	StopDecidedPass = "decided_pass"
	StopDecidedFail = "decided_fail"
	// StopMaxTrials: max trials ran, still undecided.
	StopMaxTrials = "max_trials"
	// StopBudget: the run's budget_usd was spent.
	StopBudget = "budget"
	// StopCostLimit: the test's trials cost cost_limit_usd.
	StopCostLimit = "cost_limit"
	// StopRun: the run stopped (cancelled, an unreachable endpoint).
	StopRun = "run_stopped"
)

// Outcomes is whether each of the test's trials passed, in order (a test run once is one
// trial): the binary data adaptive trials compare. An error or a skip never passed. nil
// when the test has no outcome to compare: skipped, or every trial an error.
func (t *TestResult) Outcomes() []bool {
	if t == nil || t.Verdict == Skip || t.Verdict == Error {
		return nil // Error as the test's verdict: every trial errored
	}
	if len(t.Trials) == 0 {
		return []bool{t.Verdict == Pass}
	}
	out := make([]bool, len(t.Trials))
	for i, tr := range t.Trials {
		out[i] = tr.Verdict == Pass
	}
	return out
}

// CriterionTrials counts the trials in which one grader, or one criterion of a rubric
// grader, passed.
type CriterionTrials struct {
	Grader string `json:"grader"`
	// Criterion is the rubric criterion's id; "" for the grader as a whole.
	Criterion string `json:"criterion,omitempty"`
	Passed    int    `json:"passed"`
	Total     int    `json:"total"`
}

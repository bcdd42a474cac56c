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

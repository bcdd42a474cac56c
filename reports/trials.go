package reports

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
)

// flakyFirst moves a flaky test ahead of every test whose trials agreed, keeping the
// severity order among flaky tests: a test that passes only sometimes is what a reader of
// a trials run most needs to see.
const flakyFirst = 10

// trialsNote is "3/5 trials passed (flaky, mean)", with why fewer trials ran than were asked
// for; "" for a test run once.
func trialsNote(s *result.Trials) string {
	if s == nil {
		return ""
	}
	tags := ""
	if s.Flaky {
		tags = "🎲 flaky, "
	}
	n := fmt.Sprintf("%d/%d trials passed (%s%s)", s.Passed, s.Ran, tags, s.Strategy)
	if s.MaxTrials > 0 {
		// Adaptive: how many of the most it could have run, and why it stopped there.
		return n + fmt.Sprintf("; %d of max %d: %s", s.Ran, s.MaxTrials, stopLabel(s))
	}
	if s.Ran < s.Count {
		n += fmt.Sprintf("; %d of %d run: %s", s.Ran, s.Count, s.Stopped)
	}
	return n
}

// stopLabels name the reasons adaptive trials stop, for a table cell.
var stopLabels = map[string]string{
	result.StopRegression:          "regression significant",
	result.StopCannotBeSignificant: "cannot become significant",
	result.StopNotWorse:            "not worse than the base",
	result.StopDecidedPass:         "decided pass",
	result.StopDecidedFail:         "decided fail",
	result.StopMaxTrials:           "max trials, undecided",
	result.StopBudget:              "the run's budget was spent",
	result.StopCostLimit:           "the cost limit was reached",
	result.StopRun:                 "the run stopped",
}

// stopLabel is why a test's adaptive trials stopped, in a few words.
func stopLabel(s *result.Trials) string {
	if l, ok := stopLabels[s.StopReason]; ok {
		return l
	}
	return s.Stopped
}

// writeTrials lists a test's trials and each criterion's pass rate across them; the rest of
// the details are the best trial's.
func writeTrials(b *sink, t *result.TestResult) {
	s := t.TrialSummary
	if s == nil {
		return
	}
	fmt.Fprintf(b, "**Trials:** %s · mean %s (min %s, max %s)", mdText(trialsNote(s)), score(s.Mean), score(s.Min), score(s.Max))
	if s.CI95Lower != nil && s.CI95Upper != nil {
		fmt.Fprintf(b, " · 95%% CI [%s, %s]", score(*s.CI95Lower), score(*s.CI95Upper))
	}
	b.WriteString("; the details below are the best trial's.\n\n")
	if s.MaxTrials > 0 && s.Stopped != "" {
		fmt.Fprintf(b, "**Adaptive trials:** %d to %d trials; stopped after %d: %s.\n\n", s.Count, s.MaxTrials, s.Ran, mdText(s.Stopped))
	}
	for _, tr := range t.Trials {
		line := fmt.Sprintf("%d. %s", tr.Trial, verdictCell(tr.Verdict, len(tr.Gates) > 0))
		if isScored(tr.Verdict) {
			line += " " + score(tr.Score)
		}
		if tr.Error != "" {
			line += " — " + mdText(clip(tr.Error, 200))
		}
		b.WriteString(line + "\n")
	}
	if len(s.Criteria) > 0 {
		b.WriteString("\n| Criterion | Trials passed |\n|---|--:|\n")
		for _, c := range s.Criteria {
			r := row{path: c.Grader, crit: c.Criterion, isCrit: c.Criterion != ""}
			fmt.Fprintf(b, "| %s | %d/%d |\n", rowLabel(&r), c.Passed, c.Total)
		}
	}
	b.WriteString("\n")
}

// indexTrial is one trial in an index.jsonl row, as AgentV writes it (attempt is 0-based).
type indexTrial struct {
	Attempt         int     `json:"attempt"`
	Score           float64 `json:"score"`
	Verdict         string  `json:"verdict"`
	Error           string  `json:"error,omitempty"`
	CostUSD         float64 `json:"cost_usd,omitempty"`
	ExecutionStatus string  `json:"execution_status"`
	FailureStage    string  `json:"failure_stage,omitempty"`
}

// indexTrials is a test's trials, AgentV's aggregation of them, and whether its cost limit
// cut them short, for index.jsonl.
func indexTrials(t *result.TestResult, th float64) ([]indexTrial, map[string]any, bool) {
	s := t.TrialSummary
	out := make([]indexTrial, 0, len(t.Trials))
	for _, tr := range t.Trials {
		one := &result.TestResult{Verdict: tr.Verdict, Score: tr.Score}
		out = append(out, indexTrial{Attempt: tr.Trial - 1, Score: finite(tr.Score), Verdict: agentvVerdict(tr.Verdict, tr.Score, th),
			Error: tr.Error, CostUSD: finite(tr.CostUSD), ExecutionStatus: executionStatus(one, th), FailureStage: tr.FailureStage})
	}
	agg := map[string]any{"strategy": s.Strategy}
	switch {
	case s.CI95Lower != nil && s.CI95Upper != nil && s.StdDev != nil:
		agg["mean"], agg["ci95_lower"], agg["ci95_upper"], agg["stddev"] = finite(s.Mean), finite(*s.CI95Lower), finite(*s.CI95Upper), finite(*s.StdDev)
	case s.Strategy == "mean":
		agg["mean"], agg["min"], agg["max"] = finite(s.Mean), finite(s.Min), finite(s.Max)
	default:
		agg["passed_attempts"], agg["total_attempts"] = s.Passed, s.Ran
	}
	agg["flaky"] = s.Flaky
	return out, agg, s.CostLimited
}

package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/stats"
	"github.com/evalgate/evalgate/internal/suite"
)

// trialsOf is how often the tests of s run and how the runs combine: the suite's
// execution.trials, with Config.Trials overriding its count and Config.MaxTrials its max.
func trialsOf(cfg Config, s *suite.Suite) suite.Trials {
	return s.TrialsWith(cfg.Trials, cfg.MaxTrials)
}

// runTrials runs a test once per trial, one trial after another, each a full runTest in a
// fresh workspace, and combines them (AgentV's runEvalCaseWithTrials). Every trial's cost is
// spent from the run budget as it finishes. Further trials stop when the run budget or the
// suite's cost_limit_usd is spent, when the run stops (an unreachable endpoint, a
// cancelled context), and, under pass_at_k, at the first pass (as in AgentV: one pass
// decides it). With adaptive trials (max above count) a test runs count trials and then more,
// up to max, while its sequential rule (adaptive.go) finds it undecided. The test then
// combines the trials it has and says why in Trials.Stopped and Trials.StopReason.
func runTrials(ctx context.Context, cfg Config, s *suite.Suite, t *suite.Test, b *budget, stop *abort, seq *sequential) *result.TestResult {
	spec := trialsOf(cfg, s)
	limit := spec.Count
	if seq != nil {
		limit = spec.Max
	}
	var runs []*result.TestResult
	var spent float64
	why, reason := "", ""
	for n := 1; n <= limit; n++ {
		if n > 1 {
			if why, reason = interrupted(ctx, b, stop); why != "" {
				break
			}
		}
		tr := runTest(ctx, cfg, s, t, n)
		b.spend(tr.Usage.CostUSD)
		stop.observe(tr)
		runs = append(runs, tr)
		spent += tr.Usage.CostUSD
		if seq != nil {
			if reason, why = seq.look(runs); reason != "" {
				break
			}
		}
		if n == limit {
			break
		}
		if spec.CostLimitUSD > 0 && spent >= spec.CostLimitUSD {
			why = fmt.Sprintf("the trials' cost limit of $%.2f was reached ($%.4f spent)", spec.CostLimitUSD, spent)
			reason = result.StopCostLimit
			break
		}
		if seq == nil && spec.Strategy == suite.TrialsPassAtK && tr.Verdict == result.Pass {
			why = "pass_at_k stops at the first passing trial"
			break
		}
	}
	if seq == nil && spec.Count <= 1 {
		return runs[0]
	}
	th := rubric.ForTest(cfg.Thresholds, s.Threshold, t.Threshold)
	out := combine(runs, spec, th, why)
	out.TrialSummary.StopReason = reason
	out.TrialSummary.CostLimited = reason == result.StopCostLimit
	if seq != nil {
		seq.record(out.TrialSummary)
	}
	return out
}

// interrupted says why no further trial starts, and as a Stop… code; "" when one may.
func interrupted(ctx context.Context, b *budget, stop *abort) (why, reason string) {
	switch {
	case ctx.Err() != nil:
		return "the run was cancelled", result.StopRun
	case stop.err() != nil:
		return "the run stopped: " + stop.err().Error(), result.StopRun
	case b.exhausted():
		return fmt.Sprintf("the run's budget of $%.2f was spent", b.limit), result.StopBudget
	}
	return "", ""
}

// combine turns a test's trials into its result: the best trial's result (its output,
// graders and workspace), with the score and verdict of the strategy, every trial, and the
// summary. An error trial is never a pass: it scores 0 and counts as a trial that did not
// pass; only when every trial errored is the test an error. A trial failed by a gate (a
// required grader or criterion) also scores 0 under mean and confidence_interval, as a
// required miss zeroes a score in AgentV, so an average cannot pass over it.
func combine(runs []*result.TestResult, spec suite.Trials, th result.Thresholds, why string) *result.TestResult {
	sum := &result.Trials{Strategy: spec.Strategy, Count: spec.Count, Ran: len(runs), Stopped: why}
	scores := make([]float64, len(runs))
	trials := make([]*result.TrialResult, len(runs))
	var usage result.Usage
	var duration int64
	best := 0
	for i, r := range runs {
		scores[i] = trialScore(r)
		if r.Verdict == result.Pass {
			sum.Passed++
		}
		trials[i] = &result.TrialResult{Trial: i + 1, Score: r.Score, Verdict: r.Verdict, Gates: r.Gates, Error: r.Error,
			FailureStage: r.FailureStage, CostUSD: r.Usage.CostUSD, DurationMS: r.DurationMS, Workspace: r.Workspace}
		usage.Add(r.Usage)
		duration += r.DurationMS
		if better(r, runs[best]) {
			best = i
		}
	}
	sum.Mean, sum.Min, sum.Max = meanMinMax(scores)
	sum.Flaky = sum.Passed > 0 && sum.Passed < sum.Ran
	sum.Criteria = criterionRates(runs)

	out := runs[best]
	out.StartedAt = runs[0].StartedAt
	out.Usage, out.DurationMS = usage, duration
	out.Trials, out.TrialSummary = trials, sum
	if out.Verdict == result.Error {
		return out // every trial errored: the best of them is an error too
	}
	switch spec.Strategy {
	case suite.TrialsMean:
		out.Score = sum.Mean
		out.Verdict = rubric.VerdictOf(out.Score, th)
	case suite.TrialsConfidenceInterval:
		sd, lo, hi := interval(scores, sum.Mean)
		sum.StdDev, sum.CI95Lower, sum.CI95Upper = &sd, &lo, &hi
		out.Score = lo
		out.Verdict = rubric.VerdictOf(out.Score, th)
	default: // pass_at_k: the best trial's score and verdict
	}
	return out
}

// trialScore is what a trial adds to a mean: 0 for an error or a failed gate.
func trialScore(r *result.TestResult) float64 {
	if r.Verdict == result.Error || (len(r.Gates) > 0 && r.Verdict != result.Pass) {
		return 0
	}
	return r.Score
}

// better reports whether trial a beats trial b: a better verdict, then a higher score, then
// the earlier trial.
func better(a, b *result.TestResult) bool {
	if ra, rb := verdictRank(a.Verdict), verdictRank(b.Verdict); ra != rb {
		return ra > rb
	}
	return a.Score > b.Score
}

func verdictRank(v result.Verdict) int {
	switch v {
	case result.Pass:
		return 3
	case result.Borderline:
		return 2
	case result.Fail:
		return 1
	}
	return 0
}

func meanMinMax(xs []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return mean / float64(len(xs)), lo, hi
}

// interval is the sample standard deviation and the 95 % t-interval of the mean, clamped to
// [0, 1] (AgentV's aggregateConfidenceInterval); with one score the interval is the score.
func interval(xs []float64, mean float64) (sd, lo, hi float64) {
	n := len(xs)
	if n < 2 {
		return 0, clamp01(mean), clamp01(mean)
	}
	_, variance := stats.MeanVar(xs)
	sd = math.Sqrt(variance)
	margin := stats.T95(n-1) * sd / math.Sqrt(float64(n))
	return sd, clamp01(mean - margin), clamp01(mean + margin)
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// criterionRates counts, per grader and per rubric criterion, the trials it passed in. A
// trial that never reached its graders (an error before grading) passed none of them.
func criterionRates(runs []*result.TestResult) []*result.CriterionTrials {
	var out []*result.CriterionTrials
	index := map[[2]string]*result.CriterionTrials{}
	count := func(grader, criterion string, pass bool) {
		k := [2]string{grader, criterion}
		c, ok := index[k]
		if !ok {
			c = &result.CriterionTrials{Grader: grader, Criterion: criterion, Total: len(runs)}
			index[k] = c
			out = append(out, c)
		}
		if pass {
			c.Passed++
		}
	}
	for _, r := range runs {
		for _, g := range r.Graders {
			count(g.Name, "", g.Verdict == result.Pass)
			for _, c := range g.Criteria {
				count(g.Name, c.ID, c.Verdict == result.Pass)
			}
		}
	}
	return out
}

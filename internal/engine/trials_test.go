package engine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// scriptTarget answers trial n of a test with the n-th entry of its script: a score for
// answerGrader to give, or "err" for an agent failure. Each answer costs cost dollars.
type scriptTarget struct {
	script map[string][]string
	cost   float64

	mu    sync.Mutex
	calls map[string][]int // the attempts each test was run with
}

func (s *scriptTarget) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	s.mu.Lock()
	s.calls[req.Test.ID] = append(s.calls[req.Test.ID], req.Attempt)
	s.mu.Unlock()
	answers := s.script[req.Test.ID]
	a := answers[(req.Attempt-1)%len(answers)]
	if a == "err" {
		return nil, errors.New("agent crashed")
	}
	return &result.Output{Answer: a, Usage: result.Usage{CostUSD: s.cost}}, nil
}

// answerGrader scores the answer it is given, with one criterion that passes at 0.8; the
// answer "gated" scores 1 but fails its required criterion.
type answerGrader struct{}

func (answerGrader) Grade(_ context.Context, in *grader.Input) *result.GraderResult {
	if in.Output.Answer == "gated" {
		return &result.GraderResult{Name: "g", Score: 1, Weight: 1, Verdict: result.Fail,
			Criteria: []*result.CriterionResult{{ID: "right", Score: 1, Required: true, Gated: true, Verdict: result.Fail}}}
	}
	s, _ := strconv.ParseFloat(in.Output.Answer, 64)
	v := result.Fail
	if s >= 0.8 {
		v = result.Pass
	}
	return &result.GraderResult{Name: "g", Score: s, Weight: 1, Verdict: v,
		Criteria: []*result.CriterionResult{{ID: "right", Score: s, Verdict: v}}}
}

func scriptSuite(trials *suite.Trials, script map[string][]string) *suite.Suite {
	s := &suite.Suite{Name: "s", Path: "evals/s.eval.yaml", Trials: trials}
	for id := range script {
		s.Tests = append(s.Tests, &suite.Test{ID: id, Input: []suite.Message{{Role: "user", Content: id}},
			Graders: []*suite.Grader{{Name: "g", Type: "fake", Weight: 1}}})
	}
	return s
}

func runScript(t *testing.T, trials *suite.Trials, script map[string][]string, cost float64, mod func(*Config)) (map[string]*result.TestResult, *scriptTarget, *result.Run) {
	t.Helper()
	tg := &scriptTarget{script: script, cost: cost, calls: map[string][]int{}}
	cfg := cfgFor(tg, 2)
	cfg.Grader = func(*suite.Suite, *suite.Test, *suite.Grader) (grader.Grader, error) { return answerGrader{}, nil }
	if mod != nil {
		mod(&cfg)
	}
	run, err := Run(t.Context(), []*suite.Suite{scriptSuite(trials, script)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*result.TestResult{}
	for _, tr := range run.Suites[0].Tests {
		out[tr.ID] = tr
	}
	return out, tg, run
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestTrialStrategies(t *testing.T) {
	t.Parallel()
	script := map[string][]string{
		"steady":  {"0.9", "0.9", "0.9"},
		"flaky":   {"0.5", "1", "1"},
		"broken":  {"err", "err", "err"},
		"errpass": {"err", "0.9", "0.9"},
		"gated":   {"gated", "1", "1"},
	}
	cases := []struct {
		strategy string
		id       string
		verdict  result.Verdict
		score    float64
		ran      int
		passed   int
		flaky    bool
		stopped  string
	}{
		{suite.TrialsPassAtK, "steady", result.Pass, 0.9, 1, 1, false, "first passing trial"},
		{suite.TrialsPassAtK, "flaky", result.Pass, 1, 2, 1, true, "first passing trial"},
		{suite.TrialsPassAtK, "broken", result.Error, 0, 3, 0, false, ""},
		{suite.TrialsPassAtK, "errpass", result.Pass, 0.9, 2, 1, true, "first passing trial"},
		{suite.TrialsMean, "steady", result.Pass, 0.9, 3, 3, false, ""},
		{suite.TrialsMean, "flaky", result.Pass, 0.8333, 3, 2, true, ""},
		{suite.TrialsMean, "broken", result.Error, 0, 3, 0, false, ""},
		// An error trial scores 0: (0 + 0.9 + 0.9) / 3 = 0.6, borderline, never a pass.
		{suite.TrialsMean, "errpass", result.Borderline, 0.6, 3, 2, true, ""},
		// A trial failed by a gate scores 0 in a mean, though its weighted score was 1.
		{suite.TrialsMean, "gated", result.Borderline, 0.6667, 3, 2, true, ""},
		{suite.TrialsPassAtK, "gated", result.Pass, 1, 2, 1, true, "first passing trial"},
		// mean 0.9, sd 0: the interval is the mean.
		{suite.TrialsConfidenceInterval, "steady", result.Pass, 0.9, 3, 3, false, ""},
		// mean 0.8333, sd 0.2887, t(2) 4.303: 0.8333 - 4.303·0.2887/√3 = 0.1162.
		{suite.TrialsConfidenceInterval, "flaky", result.Fail, 0.1162, 3, 2, true, ""},
	}
	for _, strategy := range []string{suite.TrialsPassAtK, suite.TrialsMean, suite.TrialsConfidenceInterval} {
		got, tg, _ := runScript(t, &suite.Trials{Count: 3, Strategy: strategy}, script, 0, nil)
		for _, c := range cases {
			if c.strategy != strategy {
				continue
			}
			tr := got[c.id]
			sum := tr.TrialSummary
			if sum == nil {
				t.Fatalf("%s/%s: no trial summary", strategy, c.id)
			}
			if tr.Verdict != c.verdict || !near(tr.Score, c.score) || sum.Ran != c.ran || len(tr.Trials) != c.ran ||
				sum.Passed != c.passed || sum.Flaky != c.flaky || sum.Count != 3 || sum.Strategy != strategy {
				t.Errorf("%s/%s: verdict %s score %.3f, summary %+v; want %s %.3f ran %d passed %d flaky %v",
					strategy, c.id, tr.Verdict, tr.Score, sum, c.verdict, c.score, c.ran, c.passed, c.flaky)
			}
			if (c.stopped == "") != (sum.Stopped == "") || !strings.Contains(sum.Stopped, c.stopped) {
				t.Errorf("%s/%s: stopped %q, want %q", strategy, c.id, sum.Stopped, c.stopped)
			}
			if att := tg.calls[c.id]; len(att) != c.ran || att[0] != 1 || att[len(att)-1] != c.ran {
				t.Errorf("%s/%s: attempts %v", strategy, c.id, att)
			}
			for i, trial := range tr.Trials {
				if trial.Trial != i+1 || (script[c.id][i] == "err") != (trial.Verdict == result.Error) {
					t.Errorf("%s/%s: trial %d: %+v", strategy, c.id, i+1, trial)
				}
			}
		}
	}

	got, _, _ := runScript(t, &suite.Trials{Count: 3, Strategy: suite.TrialsConfidenceInterval}, script, 0, nil)
	sum := got["flaky"].TrialSummary
	if sum.StdDev == nil || !near(*sum.StdDev, 0.2887) || *sum.CI95Upper != 1 || !near(*sum.CI95Lower, 0.1162) || !near(sum.Mean, 0.8333) || sum.Min != 0.5 || sum.Max != 1 {
		t.Errorf("interval: %+v sd %v", sum, sum.StdDev)
	}
	want := []result.CriterionTrials{{Grader: "g", Passed: 2, Total: 3}, {Grader: "g", Criterion: "right", Passed: 2, Total: 3}}
	if len(sum.Criteria) != 2 || *sum.Criteria[0] != want[0] || *sum.Criteria[1] != want[1] {
		t.Errorf("criteria %+v", sum.Criteria)
	}
	if b := got["broken"]; b.TrialSummary.Criteria != nil || b.Error == "" || b.FailureStage != result.StageAgent {
		t.Errorf("broken: %+v", b)
	}
}

func TestTrialsStop(t *testing.T) {
	t.Parallel()
	script := map[string][]string{"a": {"0.5", "0.5", "0.5", "0.5", "0.5"}}
	mean := &suite.Trials{Count: 5, Strategy: suite.TrialsMean}

	// --trials overrides the suite's count; a single run has no trials.
	got, _, _ := runScript(t, mean, script, 0.1, func(c *Config) { c.Trials = 2 })
	if s := got["a"].TrialSummary; s == nil || s.Ran != 2 || s.Count != 2 || s.Stopped != "" || !near(got["a"].Usage.CostUSD, 0.2) {
		t.Errorf("--trials 2: %+v", s)
	}
	got, _, _ = runScript(t, mean, script, 0.1, func(c *Config) { c.Trials = 1 })
	if got["a"].TrialSummary != nil || got["a"].Trials != nil || got["a"].Verdict != result.Fail {
		t.Errorf("--trials 1: %+v", got["a"])
	}

	// cost_limit_usd: 0.25 is reached after the third trial of $0.10.
	limited := &suite.Trials{Count: 5, Strategy: suite.TrialsMean, CostLimitUSD: 0.25}
	got, tg, _ := runScript(t, limited, script, 0.1, nil)
	if s := got["a"].TrialSummary; s.Ran != 3 || !strings.Contains(s.Stopped, "cost limit of $0.25") || !s.CostLimited || len(tg.calls["a"]) != 3 || got["a"].Verdict != result.Fail {
		t.Errorf("cost limit: %+v", s)
	}

	// The run budget stops further trials too, and the test keeps the trials it has.
	got, _, run := runScript(t, mean, script, 0.1, func(c *Config) { c.BudgetUSD = 0.15 })
	if s := got["a"].TrialSummary; s.Ran != 2 || !strings.Contains(s.Stopped, "budget of $0.15") || s.CostLimited || run.Budget.NotRun != 0 || !near(run.Budget.SpentUSD, 0.2) {
		t.Errorf("budget: %+v, run budget %+v", s, run.Budget)
	}
}

func TestTrialsWithoutACountRunOnce(t *testing.T) {
	t.Parallel()
	// A suite built in code may leave Trials.Count at 0 (the parser never does): the test runs
	// once, as with trials off, instead of running nothing.
	script := map[string][]string{"a": {"0.9"}}
	got, tg, _ := runScript(t, &suite.Trials{Strategy: suite.TrialsMean}, script, 0, nil)
	if got["a"].Verdict != result.Pass || got["a"].TrialSummary != nil || len(tg.calls["a"]) != 1 {
		t.Errorf("count 0: %+v, calls %v", got["a"], tg.calls["a"])
	}
}

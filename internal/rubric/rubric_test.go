package rubric

import (
	"math"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

var th = result.DefaultThresholds

func sat(id string, ok bool) Check  { return Check{ID: id, Satisfied: &ok, Reasoning: "because"} }
func scored(id string, s int) Check { return Check{ID: id, Score: &s} }
func f(x float64) *float64          { return &x }

func near(a, b float64) bool { return math.Abs(a-b) < 0.0005 }

func crit(id string, w float64, required bool) *suite.Criterion {
	return &suite.Criterion{ID: id, Outcome: id + " outcome", Weight: w, Required: required}
}

func ranged(id string, w float64) *suite.Criterion {
	c := crit(id, w, false)
	c.ScoreRanges = []suite.ScoreRange{{Min: 0, Max: 4, Outcome: "poor"}, {Min: 5, Max: 7, Outcome: "ok"}, {Min: 8, Max: 10, Outcome: "great"}}
	return c
}

func TestChecklist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		criteria  []*suite.Criterion
		checks    []Check
		score     float64
		verdict   result.Verdict
		gated     bool
		errorIDs  []string
		unknownID bool
	}{
		{
			name:     "weighted share of satisfied criteria",
			criteria: []*suite.Criterion{crit("a", 2, false), crit("b", 1, false), crit("c", 1, false)},
			checks:   []Check{sat("a", true), sat("b", true), sat("c", false)},
			score:    0.75, verdict: result.Borderline,
		},
		{
			name:     "all satisfied passes",
			criteria: []*suite.Criterion{crit("a", 1, true), crit("b", 1, true)},
			checks:   []Check{sat("a", true), sat("b", true)},
			score:    1, verdict: result.Pass,
		},
		{
			name:     "unsatisfied required criterion gates a high score",
			criteria: []*suite.Criterion{crit("a", 4, false), crit("req", 1, true)},
			checks:   []Check{sat("a", true), sat("req", false)},
			score:    0.8, verdict: result.Fail, gated: true,
		},
		{
			name:     "unsatisfied optional criterion does not gate",
			criteria: []*suite.Criterion{crit("a", 9, true), crit("opt", 1, false)},
			checks:   []Check{sat("a", true), sat("opt", false)},
			score:    0.9, verdict: result.Pass,
		},
		{
			name:     "omitted criterion is an error kept in the denominator",
			criteria: []*suite.Criterion{crit("a", 1, true), crit("b", 1, true), crit("c", 1, true)},
			checks:   []Check{sat("a", true)},
			score:    1.0 / 3, verdict: result.Error, errorIDs: []string{"b", "c"},
		},
		{
			name:     "judge error on a criterion",
			criteria: []*suite.Criterion{crit("a", 1, true), crit("b", 1, true)},
			checks:   []Check{sat("a", true), {ID: "b", Err: "wrong type"}},
			score:    0.5, verdict: result.Error, errorIDs: []string{"b"},
		},
		{
			name:     "unknown ids are ignored, first duplicate wins",
			criteria: []*suite.Criterion{crit("a", 1, true)},
			checks:   []Check{sat("a", true), sat("a", false), sat("zzz", false)},
			score:    1, verdict: result.Pass, unknownID: true,
		},
		{
			name:     "zero total weight scores 0",
			criteria: []*suite.Criterion{crit("a", 0, false)},
			checks:   []Check{sat("a", true)},
			score:    0, verdict: result.Fail,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := Checklist(tt.criteria, tt.checks, th)
			if !near(g.Score, tt.score) || g.Verdict != tt.verdict || g.Gated != tt.gated {
				t.Fatalf("got score %.4f verdict %s gated %v, want %.4f %s %v", g.Score, g.Verdict, g.Gated, tt.score, tt.verdict, tt.gated)
			}
			if len(g.Criteria) != len(tt.criteria) {
				t.Fatalf("criteria dropped: got %d, want %d", len(g.Criteria), len(tt.criteria))
			}
			var errs []string
			for _, c := range g.Criteria {
				if c.Verdict == result.Error {
					errs = append(errs, c.ID)
				}
			}
			if len(errs) != len(tt.errorIDs) {
				t.Fatalf("error criteria = %v, want %v", errs, tt.errorIDs)
			}
			_, hasUnknown := g.Details["unknown_ids"]
			if hasUnknown != tt.unknownID {
				t.Fatalf("unknown_ids present = %v, want %v", hasUnknown, tt.unknownID)
			}
		})
	}
}

func TestRange(t *testing.T) {
	t.Parallel()
	t.Run("seed 003 weighted example is 0.817", func(t *testing.T) {
		t.Parallel()
		cs := []*suite.Criterion{ranged("accuracy", 3), ranged("clarity", 1), ranged("completeness", 2)}
		g := Range(cs, []Check{scored("accuracy", 9), scored("clarity", 8), scored("completeness", 7)}, th)
		if math.Round(g.Score*1000)/1000 != 0.817 || g.Verdict != result.Pass {
			t.Fatalf("score %.4f verdict %s, want 0.817 pass", g.Score, g.Verdict)
		}
		if g.Criteria[2].Band != "ok" || *g.Criteria[0].Raw != 9 {
			t.Fatalf("band/raw wrong: %+v", g.Criteria[2])
		}
	})
	t.Run("AgentV empirical example: min_score met, 0.633", func(t *testing.T) {
		t.Parallel()
		acc := ranged("acc", 2)
		acc.MinScore = f(0.6)
		g := Range([]*suite.Criterion{acc, ranged("style", 1)}, []Check{scored("acc", 7), scored("style", 5)}, th)
		if !near(g.Score, 0.6333) || g.Gated || g.Verdict != result.Borderline {
			t.Fatalf("score %.4f gated %v verdict %s", g.Score, g.Gated, g.Verdict)
		}
	})
	t.Run("below min_score gates", func(t *testing.T) {
		t.Parallel()
		acc := ranged("acc", 1)
		acc.MinScore = f(0.7)
		g := Range([]*suite.Criterion{acc, ranged("style", 9)}, []Check{scored("acc", 6), scored("style", 10)}, th)
		if !g.Gated || g.Verdict != result.Fail || !g.Criteria[0].Gated || !near(g.Score, 0.96) {
			t.Fatalf("got %+v", g)
		}
	})
	t.Run("required without min means the pass threshold, not 10/10", func(t *testing.T) {
		t.Parallel()
		c := ranged("acc", 1)
		c.Required = true
		if g := Range([]*suite.Criterion{c}, []Check{scored("acc", 8)}, th); g.Gated || g.Verdict != result.Pass {
			t.Fatalf("8/10 required: got gated %v verdict %s", g.Gated, g.Verdict)
		}
		if g := Range([]*suite.Criterion{c}, []Check{scored("acc", 7)}, th); !g.Gated || g.Verdict != result.Fail {
			t.Fatalf("7/10 required: got gated %v verdict %s", g.Gated, g.Verdict)
		}
	})
	t.Run("ungated criterion never gates", func(t *testing.T) {
		t.Parallel()
		g := Range([]*suite.Criterion{ranged("a", 1)}, []Check{scored("a", 0)}, th)
		if g.Gated || g.Verdict != result.Fail || g.Score != 0 {
			t.Fatalf("got %+v", g)
		}
	})
	t.Run("out of range score is an error, not clamped", func(t *testing.T) {
		t.Parallel()
		g := Range([]*suite.Criterion{ranged("a", 1), ranged("b", 1)}, []Check{scored("a", 11), scored("b", 10)}, th)
		if g.Verdict != result.Error || g.Criteria[0].Verdict != result.Error || !near(g.Score, 0.5) {
			t.Fatalf("got verdict %s score %.3f", g.Verdict, g.Score)
		}
	})
	t.Run("missing criterion is an error", func(t *testing.T) {
		t.Parallel()
		g := Range([]*suite.Criterion{ranged("a", 1), ranged("b", 1)}, []Check{scored("a", 10)}, th)
		if g.Verdict != result.Error || !near(g.Score, 0.5) {
			t.Fatalf("got verdict %s score %.3f", g.Verdict, g.Score)
		}
	})
}

func potato() *suite.LikertScheme {
	c := func(name string, w float64) *suite.LikertCriterion {
		return &suite.LikertCriterion{Name: name, Weight: w, Anchors: map[int]string{3: "Average"}}
	}
	return &suite.LikertScheme{
		Name: "agent_quality", Min: 1, Max: 5,
		Criteria: []*suite.LikertCriterion{c("correctness", 3), c("code_quality", 2), c("efficiency", 1.5), c("documentation", 1), c("error_handling", 1.5)},
		Overall:  &suite.LikertCriterion{Name: "overall"},
	}
}

func TestLikert(t *testing.T) {
	t.Parallel()
	t.Run("seed 004 weighted_score 3.56", func(t *testing.T) {
		t.Parallel()
		checks := []Check{scored("correctness", 4), scored("code_quality", 3), scored("efficiency", 5), scored("documentation", 2), scored("error_handling", 3), scored("overall", 4)}
		g := Likert(potato(), checks, th)
		ws, _ := g.Details["weighted_score"].(float64)
		if math.Round(ws*100)/100 != 3.56 {
			t.Fatalf("weighted_score = %v, want 3.56", ws)
		}
		want := (32.0/9 - 1) / 4
		if !near(g.Score, want) || g.Verdict != result.Borderline {
			t.Fatalf("score %.4f verdict %s, want %.4f borderline", g.Score, g.Verdict, want)
		}
		if g.Details["overall"] != 4 || g.Criteria[1].Band != "Average" {
			t.Fatalf("overall/band: %v %q", g.Details["overall"], g.Criteria[1].Band)
		}
	})
	t.Run("rating outside the scale is an error", func(t *testing.T) {
		t.Parallel()
		checks := []Check{scored("correctness", 9), scored("code_quality", 3), scored("efficiency", 5), scored("documentation", 2), scored("error_handling", 3)}
		g := Likert(potato(), checks, th)
		if g.Verdict != result.Error || g.Criteria[0].Verdict != result.Error {
			t.Fatalf("got %s", g.Verdict)
		}
		if _, ok := g.Details["weighted_score"]; ok {
			t.Fatal("weighted_score reported for an incomplete rating")
		}
	})
}

func TestVerdictAndThresholds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		score float64
		want  result.Verdict
	}{{0.8, result.Pass}, {0.79, result.Borderline}, {0.6, result.Borderline}, {0.59, result.Fail}} {
		if got := VerdictOf(tc.score, th); got != tc.want {
			t.Errorf("VerdictOf(%v) = %s, want %s", tc.score, got, tc.want)
		}
	}
	if got := ForTest(th, f(0.9), nil); got.Pass != 0.9 || got.Borderline != 0.6 {
		t.Errorf("suite threshold: %+v", got)
	}
	if got := ForTest(th, f(0.9), f(0.5)); got.Pass != 0.5 || got.Borderline != 0.5 {
		t.Errorf("test threshold below borderline: %+v", got)
	}
}

func grader(name string, score, weight float64, v result.Verdict) *result.GraderResult {
	return &result.GraderResult{Name: name, Score: score, Weight: weight, Verdict: v}
}

func TestTest(t *testing.T) {
	t.Parallel()
	gatedCrit := &result.CriterionResult{ID: "req", Satisfied: ptr(false), Gated: true}
	tests := []struct {
		name    string
		tr      *result.TestResult
		score   float64
		verdict result.Verdict
		gates   int
	}{
		{"weighted mean of graders", &result.TestResult{Graders: []*result.GraderResult{grader("a", 1, 3, result.Pass), grader("b", 0, 1, result.Fail)}}, 0.75, result.Borderline, 0},
		{"weight 0 grader is informational", &result.TestResult{Graders: []*result.GraderResult{grader("a", 1, 1, result.Pass), grader("b", 0, 0, result.Fail)}}, 1, result.Pass, 0},
		{"skipped grader excluded", &result.TestResult{Graders: []*result.GraderResult{grader("a", 0.9, 1, result.Pass), grader("b", 0, 1, result.Skip)}}, 0.9, result.Pass, 0},
		{"gated criterion fails the test, score unchanged", &result.TestResult{Graders: []*result.GraderResult{{Name: "r", Score: 0.9, Weight: 1, Verdict: result.Fail, Gated: true, Criteria: []*result.CriterionResult{gatedCrit}}}}, 0.9, result.Fail, 1},
		// A required grader below its minimum makes the test score 0, as in AgentV 4.42
		// (orchestrator.ts: "if any evaluator with `required` flag fails its threshold,
		// aggregate becomes 0").
		{"required grader below threshold zeroes the score", &result.TestResult{Graders: []*result.GraderResult{{Name: "r", Score: 0.7, Weight: 1, Verdict: result.Borderline, Required: true}, grader("c", 1, 3, result.Pass)}}, 0, result.Fail, 1},
		// AgentV's empirical case (agentv.md §3.6): contains = 1 and rubrics (required,
		// min_score 0.9) = 0.8 give the test score 0.
		{"AgentV: contains 1 + required rubrics 0.8 < 0.9", &result.TestResult{Graders: []*result.GraderResult{grader("contains", 1, 1, result.Pass), {Name: "rubrics", Score: 0.8, Weight: 1, Verdict: result.Pass, Required: true, MinScore: f(0.9)}}}, 0, result.Fail, 1},
		{"numeric required is the minimum", &result.TestResult{Graders: []*result.GraderResult{grader("a", 1, 1, result.Pass), {Name: "r", Score: 0.5, Weight: 1, Verdict: result.Fail, Required: true, MinScore: f(0.5)}}}, 0.75, result.Borderline, 0},
		{"required grader with min_score", &result.TestResult{Graders: []*result.GraderResult{{Name: "r", Score: 0.7, Weight: 1, Verdict: result.Borderline, Required: true, MinScore: f(0.6)}}}, 0.7, result.Borderline, 0},
		{"grader error makes the test an error, never a pass", &result.TestResult{Graders: []*result.GraderResult{grader("a", 1, 5, result.Pass), {Name: "j", Weight: 1, Verdict: result.Error, Error: "judge 500"}}}, 5.0 / 6, result.Error, 0},
		{"target error", &result.TestResult{Error: "agent crashed"}, 0, result.Error, 0},
		{"no graders is an error", &result.TestResult{}, 0, result.Error, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			Test(tt.tr, th)
			if !near(tt.tr.Score, tt.score) || tt.tr.Verdict != tt.verdict || len(tt.tr.Gates) != tt.gates {
				t.Fatalf("got score %.4f verdict %s gates %v; want %.4f %s %d", tt.tr.Score, tt.tr.Verdict, tt.tr.Gates, tt.score, tt.verdict, tt.gates)
			}
			if tt.verdict == result.Error && tt.tr.Error == "" {
				t.Fatal("error verdict without an error message")
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	tests := []*result.TestResult{
		{Verdict: result.Pass, Score: 1},
		{Verdict: result.Borderline, Score: 0.7},
		{Verdict: result.Fail, Score: 0.3},
		{Verdict: result.Error},
		{Verdict: result.Skip},
	}
	s := summarize(tests)
	if s.Total != 5 || s.Passed != 1 || s.Borderline != 1 || s.Failed != 1 || s.Errors != 1 || s.Skipped != 1 {
		t.Fatalf("counts: %+v", s)
	}
	if !near(s.Score, 2.0/3) || s.Verdict != result.Error {
		t.Fatalf("score %.4f verdict %s", s.Score, s.Verdict)
	}
	if got := summarize(tests[:2]).Verdict; got != result.Borderline {
		t.Fatalf("pass+borderline = %s", got)
	}
	if got := summarize(tests[4:]).Verdict; got != result.Skip {
		t.Fatalf("all skipped = %s", got)
	}
	if got := summarize(nil).Verdict; got != result.Pass {
		t.Fatalf("empty = %s", got)
	}
}

func TestSummarizeRun(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pass := &result.TestResult{Verdict: result.Pass, Score: 1, DurationMS: 9000}
	tests := []struct {
		name          string
		suites        []*result.SuiteResult
		run, suite0   result.Verdict
		total, passed int
	}{
		{"passing", []*result.SuiteResult{{Tests: []*result.TestResult{pass, pass}}}, result.Pass, result.Pass, 2, 2},
		{"a load error fails the run", []*result.SuiteResult{{Tests: []*result.TestResult{pass}}, {Error: "bad yaml"}}, result.Error, result.Pass, 1, 1},
		{"a suite error beats its passing tests", []*result.SuiteResult{{Tests: []*result.TestResult{pass}, Error: "setup"}}, result.Error, result.Error, 1, 1},
		{"no suites", nil, result.Pass, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := &result.Run{StartedAt: start, FinishedAt: start.Add(1500 * time.Millisecond), Suites: tt.suites}
			SummarizeRun(run)
			s := run.Summary
			if s.Verdict != tt.run || s.Total != tt.total || s.Passed != tt.passed {
				t.Fatalf("run summary %+v, want verdict %s total %d passed %d", s, tt.run, tt.total, tt.passed)
			}
			if s.DurationMS != 1500 {
				t.Fatalf("duration %d ms, want the wall time 1500", s.DurationMS)
			}
			if len(run.Suites) > 0 && run.Suites[0].Summary.Verdict != tt.suite0 {
				t.Fatalf("suite 0 verdict %s, want %s", run.Suites[0].Summary.Verdict, tt.suite0)
			}
		})
	}
}

package reports

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

func TestTrialsInComment(t *testing.T) {
	t.Parallel()
	g := func(v result.Verdict, s float64) []*result.GraderResult {
		return []*result.GraderResult{{Name: "rubrics", Type: "rubrics", Weight: 1, Score: s, Verdict: v,
			Criteria: []*result.CriterionResult{{ID: "correct", Weight: 1, Score: s, Verdict: v}}}}
	}
	steadyFail := &result.TestResult{Suite: "s", ID: "always-wrong", Verdict: result.Fail, Score: 0.2, Graders: g(result.Fail, 0.2),
		TrialSummary: &result.Trials{Strategy: "mean", Count: 3, Ran: 3, Mean: 0.2, Min: 0.2, Max: 0.2}}
	flaky := &result.TestResult{Suite: "s", ID: "sometimes", Verdict: result.Pass, Score: 0.8, Graders: g(result.Pass, 1),
		Trials: []*result.TrialResult{{Trial: 1, Verdict: result.Pass, Score: 1}, {Trial: 2, Verdict: result.Error, Error: "agent crashed"},
			{Trial: 3, Verdict: result.Pass, Score: 1}, {Trial: 4, Verdict: result.Pass, Score: 1}, {Trial: 5, Verdict: result.Pass, Score: 1}},
		TrialSummary: &result.Trials{Strategy: "mean", Count: 5, Ran: 5, Passed: 4, Mean: 0.8, Max: 1, Flaky: true,
			Criteria: []*result.CriterionTrials{{Grader: "rubrics", Passed: 4, Total: 5}, {Grader: "rubrics", Criterion: "correct", Passed: 4, Total: 5}}}}
	stopped := &result.TestResult{Suite: "s", ID: "cut-short", Verdict: result.Pass, Score: 1, Graders: g(result.Pass, 1),
		TrialSummary: &result.Trials{Strategy: "pass_at_k", Count: 5, Ran: 2, Passed: 1, Flaky: true, Mean: 0.5, Max: 1,
			Stopped: "pass_at_k stops at the first passing trial"}}
	p, c, lv := 0.0016, 0.0038, 0.0025
	adaptive := &result.TestResult{Suite: "s", ID: "collapsed", Verdict: result.Fail, Score: 0, Graders: g(result.Fail, 0),
		TrialSummary: &result.Trials{Strategy: "mean", Count: 1, MaxTrials: 10, Ran: 5, StopReason: result.StopRegression,
			Stopped: "regression significant: head 0/5 vs base 9/10 passed, p = 0.0016, significant at ≤ 0.0038",
			BaseRan: 10, BasePassed: 9, PValue: &p, Boundary: &c, Level: &lv}}
	run := &result.Run{Summary: result.Summary{Total: 4, Passed: 2, Failed: 2, Verdict: result.Fail},
		Suites: []*result.SuiteResult{{Name: "s", Path: "evals/s.eval.yaml", Tests: []*result.TestResult{steadyFail, flaky, stopped, adaptive}}}}
	got := NewReport(run, nil).Comment(CommentOptions{})
	checkMarkdown(t, got, false)

	var ids []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\| \\*overall\\*").FindAllStringSubmatch(got, -1) {
		ids = append(ids, m[1])
	}
	if strings.Join(ids, ",") != "sometimes,cut-short,always-wrong,collapsed" && strings.Join(ids, ",") != "sometimes,cut-short,collapsed,always-wrong" {
		t.Errorf("flaky tests must come first, got %v", ids)
	}
	for _, want := range []string{
		"| 4/5 trials passed (🎲 flaky, mean) |",
		`1/2 trials passed (🎲 flaky, pass\_at\_k); 2 of 5 run: pass\_at\_k stops at the first passing trial`,
		"| 0/3 trials passed (mean) |",
		"2. 💥 error — agent crashed\n3. ✅ pass 1.00\n",
		"| rubrics › `correct` | 4/5 |",
		"0/5 trials passed (mean); 5 of max 10: regression significant |",
		"**Adaptive trials:** 1 to 10 trials; stopped after 5: regression significant: head 0/5 vs base 9/10 passed, p = 0.0016, significant at ≤ 0.0038.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks %q:\n%s", want, got)
		}
	}
}

func TestTrialsInIndex(t *testing.T) {
	t.Parallel()
	lo, hi, sd := 0.1162, 1.0, 0.2887
	tr := &result.TestResult{Suite: "s", ID: "a", Verdict: result.Fail, Score: lo, Threshold: 0.8,
		Trials:       []*result.TrialResult{{Trial: 1, Verdict: result.Fail, Score: 0.5, CostUSD: 0.1}, {Trial: 2, Verdict: result.Error, Error: "crashed", FailureStage: "agent"}},
		TrialSummary: &result.Trials{Strategy: "confidence_interval", Count: 5, Ran: 2, CostLimited: true, Mean: 0.25, StdDev: &sd, CI95Lower: &lo, CI95Upper: &hi}}
	run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Tests: []*result.TestResult{tr}}}}
	var buf bytes.Buffer
	if err := WriteIndex(&buf, run); err != nil {
		t.Fatal(err)
	}
	var row struct {
		Trials      []map[string]any `json:"trials"`
		Aggregation map[string]any   `json:"aggregation"`
		CostLimited bool             `json:"cost_limited"`
	}
	if err := json.Unmarshal(buf.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	if len(row.Trials) != 2 || row.Trials[0]["attempt"] != 0.0 || row.Trials[0]["verdict"] != "fail" || row.Trials[0]["execution_status"] != "quality_failure" ||
		row.Trials[1]["execution_status"] != "execution_error" || row.Trials[1]["error"] != "crashed" {
		t.Errorf("trials %v", row.Trials)
	}
	if row.Aggregation["strategy"] != "confidence_interval" || row.Aggregation["ci95_lower"] != lo || row.Aggregation["stddev"] != sd || !row.CostLimited {
		t.Errorf("aggregation %v, cost limited %v", row.Aggregation, row.CostLimited)
	}
}

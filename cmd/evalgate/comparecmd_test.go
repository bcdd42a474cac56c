package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// trialRun is a run of one suite whose tests ran 10 trials each; test i passes passes[i] of them.
func trialRun(passes ...int) *result.Run {
	run := &result.Run{SchemaVersion: result.SchemaVersion, Thresholds: result.DefaultThresholds}
	s := &result.SuiteResult{Name: "greeter", Target: "agent"}
	for i, p := range passes {
		t := &result.TestResult{Suite: "greeter", ID: fmt.Sprintf("t%d", i), Threshold: 0.8,
			TrialSummary: &result.Trials{Strategy: "mean", Count: 10, Ran: 10, Passed: p}}
		for k := range 10 {
			tr := &result.TrialResult{Trial: k + 1, Verdict: result.Fail}
			if k < p {
				tr.Verdict, tr.Score = result.Pass, 1
			}
			t.Trials = append(t.Trials, tr)
		}
		t.Score = float64(p) / 10
		t.TrialSummary.Mean = t.Score
		t.Verdict = result.Fail
		if t.Score >= 0.8 {
			t.Verdict = result.Pass
		}
		s.Tests = append(s.Tests, t)
	}
	run.Suites = []*result.SuiteResult{s}
	return run
}

func writeRun(t *testing.T, path string, run *result.Run) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write := reports.WriteResults
	if strings.HasSuffix(path, ".jsonl") {
		write = reports.WriteIndex
	}
	if err := write(f, run); err != nil {
		t.Fatal(err)
	}
}

func TestCompareCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head, same := filepath.Join(dir, "base.json"), filepath.Join(dir, "head"), filepath.Join(dir, "same.jsonl")
	if err := os.Mkdir(head, 0o755); err != nil {
		t.Fatal(err)
	}
	writeRun(t, base, trialRun(10, 10, 9))
	// t0 collapses (10/10 → 1/10 passes): significant; t1 and t2 stay.
	writeRun(t, filepath.Join(head, "index.jsonl"), trialRun(1, 10, 9))
	writeRun(t, same, trialRun(10, 10, 9))
	agentv := "../../internal/suite/testdata/agentv442/examples/features/weighted-graders/evals/dataset.eval.baseline.jsonl"

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
		// golden, when set, is the file under testdata/golden stdout must equal (with the
		// temporary directory written DIR).
		golden string
	}{
		{name: "regression shown", args: []string{base, head}, golden: "compare.txt"},
		{name: "regression fails the gate", args: []string{base, head, "--fail-on-regression"}, code: 1, stdout: []string{"regression greeter/t0"}},
		{name: "no regression passes", args: []string{base, same, "--fail-on-regression"}, stdout: []string{"0 significant regressions"}},
		{name: "markdown", args: []string{base, head, "--format", "markdown"}, golden: "compare.md"},
		{name: "AgentV's index.jsonl against itself", args: []string{agentv, agentv, "--fail-on-regression"}, stdout: []string{"weighted-evaluators-examples", "experimental-evaluator-disabled", "unchanged", "0 significant regressions"}},
		{name: "threshold", args: []string{base, head, "-t", "0.95"}, stdout: []string{"0 losses · 3 ties at threshold 0.95"}},
		{name: "bad format", args: []string{base, head, "--format", "html"}, code: 2, stderr: `--format must be one of table, markdown, json, not "html"`},
		{name: "bad alpha", args: []string{base, head, "--regression-alpha", "0"}, code: 2, stderr: "--regression-alpha must be between 0 and 1"},
		{name: "missing file", args: []string{base, filepath.Join(dir, "nope.json")}, code: 2, stderr: "nope.json: no such file"},
		{name: "empty dir", args: []string{base, t.TempDir()}, code: 2, stderr: "holds neither results.json nor index.jsonl"},
		{name: "one run", args: []string{base}, code: 2, stderr: "compare needs two runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := invoke(t, append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tt.stderr != "" && !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join("testdata", "golden", tt.golden), strings.ReplaceAll(out, dir, "DIR"), updating())
			}
		})
	}
}

func TestCompareJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "results.json")
	writeRun(t, base, trialRun(10, 10))
	writeRun(t, head, trialRun(1, 10))
	code, out, errOut := invoke(t, "compare", base, head, "--format", "json", "--fail-on-regression")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Base        string `json:"base"`
		Regressions int    `json:"regressions"`
		Summary     struct {
			Losses int `json:"losses"`
			Ties   int `json:"ties"`
		} `json:"summary"`
		Comparison struct {
			Alpha float64 `json:"alpha"`
			Tests []struct {
				ID     string `json:"id"`
				Change string `json:"change"`
				Method string `json:"method"`
			} `json:"tests"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Base != base || doc.Regressions != 1 || doc.Summary.Losses != 1 || doc.Summary.Ties != 1 || doc.Comparison.Alpha != 0.05 ||
		len(doc.Comparison.Tests) != 2 || doc.Comparison.Tests[0].Change != "regression" || doc.Comparison.Tests[0].Method == "" {
		t.Errorf("json: %+v", doc)
	}
}

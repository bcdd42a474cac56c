package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

const trialsSuite = `name: trials
execution:
  target: bot
  trials:
    count: 3
    strategy: mean
tests:
  - id: steady
    input: What is 2 + 2?
    assertions:
      - type: contains
        value: "4"
  - id: capital
    input: What is the capital of France?
    assertions:
      - type: contains
        value: Paris
`

const trialsTargets = `targets:
  - name: bot
    provider: mock
    replies: bot.jsonl
`

// The mock's attempt is the trial number - 1: the bot is wrong on the first trial only.
const trialsReplies = `{"test_id": "steady", "reply": "It is 4."}
{"test_id": "capital", "attempt": 0, "reply": "Lyon."}
{"test_id": "capital", "attempt": 1, "reply": "Paris."}
{"test_id": "capital", "attempt": 2, "reply": "Paris."}
`

// TestTrialsEndToEnd runs a suite with execution.trials against the mock provider, whose
// replies differ per trial, then again with --trials overriding the count.
func TestTrialsEndToEnd(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"evals/trials.eval.yaml": trialsSuite,
		"evals/targets.yaml":     trialsTargets,
		"evals/bot.jsonl":        trialsReplies,
	})
	runWith := func(t *testing.T, wantCode int, flags ...string) (map[string]*result.TestResult, string, string) {
		t.Helper()
		out := t.TempDir()
		code, _, stderr := invoke(t, append(append([]string{"run", "--root", dir, "--no-cache", "--out", out}, flags...), dir)...)
		if code != wantCode {
			t.Fatalf("exit %d, want %d\n%s", code, wantCode, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		var run result.Run
		if err := json.Unmarshal(b, &run); err != nil {
			t.Fatal(err)
		}
		tests := map[string]*result.TestResult{}
		for _, tr := range run.Suites[0].Tests {
			tests[tr.ID] = tr
		}
		comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
		if err != nil {
			t.Fatal(err)
		}
		return tests, string(comment), stderr
	}

	// Borderline does not fail the run by default: exit 0.
	tests, comment, stderr := runWith(t, 0)
	if !strings.Contains(stderr, "2 tests from 1 suite, 2 at a time, up to 3 trials each") {
		t.Errorf("start line lacks the trials:\n%s", stderr)
	}
	steady, capital := tests["steady"], tests["capital"]
	if s := steady.TrialSummary; steady.Verdict != result.Pass || s == nil || s.Ran != 3 || s.Passed != 3 || s.Flaky || len(steady.Trials) != 3 {
		t.Errorf("steady: %s %+v", steady.Verdict, steady.TrialSummary)
	}
	// Scores 0, 1, 1: a mean of 0.67 is borderline, and the disagreement is flaky.
	if s := capital.TrialSummary; capital.Verdict != result.Borderline || s == nil || s.Passed != 2 || !s.Flaky || s.Strategy != "mean" ||
		capital.Trials[0].Verdict != result.Fail || capital.Trials[1].Verdict != result.Pass || capital.Output.Answer != "Paris." {
		t.Errorf("capital: %s %.2f %+v", capital.Verdict, capital.Score, capital.TrialSummary)
	}
	if s := capital.TrialSummary.Criteria; len(s) == 0 || s[0].Passed != 2 || s[0].Total != 3 {
		t.Errorf("capital criteria: %+v", capital.TrialSummary.Criteria)
	}
	i, j := strings.Index(comment, "| `capital` |"), strings.Index(comment, "2/3 trials passed (🎲 flaky, mean)")
	if i < 0 || j < i {
		t.Errorf("comment lacks the flaky capital row:\n%s", comment)
	}

	// --trials 2 overrides the count: scores 0 and 1 average 0.5, a fail.
	tests, _, stderr = runWith(t, 1, "--trials", "2")
	if !strings.Contains(stderr, "up to 2 trials each") {
		t.Errorf("start line lacks --trials:\n%s", stderr)
	}
	if c := tests["capital"]; c.Verdict != result.Fail || c.TrialSummary.Ran != 2 || c.TrialSummary.Count != 2 || c.Score != 0.5 {
		t.Errorf("--trials 2: capital %s %.2f %+v", c.Verdict, c.Score, c.TrialSummary)
	}
}

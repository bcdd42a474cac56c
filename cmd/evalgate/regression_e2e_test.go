package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedSuite writes a suite of n tests whose target answers PASS or FAIL from outcomes
// drawn in advance with a seeded generator: test i's trial k passes with probability rate.
// trials 1 runs each test once; more runs them under the mean strategy. The target is the mock
// with a reply recorded per test and trial, so the whole run — trials, grading, the
// comparison and the gate — is evalgate's alone, without a process per trial.
func scriptedSuite(t *testing.T, seed uint64, n, trials int, rate float64) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	var suite, replies strings.Builder
	suite.WriteString("name: sim\n")
	if trials > 1 {
		fmt.Fprintf(&suite, "execution:\n  trials:\n    count: %d\n    strategy: mean\n", trials)
	}
	suite.WriteString("tests:\n")
	for i := range n {
		id := fmt.Sprintf("t%02d", i)
		fmt.Fprintf(&suite, "  - id: %s\n    input: go\n    assertions:\n      - type: contains\n        value: PASS\n", id)
		for k := range trials {
			answer := "FAIL"
			if r.Float64() < rate {
				answer = "PASS"
			}
			// The mock's attempt is the trial, counted from 0.
			fmt.Fprintf(&replies, "{\"test_id\": %q, \"attempt\": %d, \"reply\": %q}\n", id, k, answer)
		}
	}
	files := map[string]string{
		"evals/sim.eval.yaml": suite.String(),
		"replies.jsonl":       replies.String(),
		"targets.yaml":        "targets:\n  - name: default\n    provider: mock\n    replies: replies.jsonl\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRegressionGateEndToEnd runs scripted agents through `evalgate run --baseline …
// --fail-on-regression`: an unchanged agent passes the regression gate, a drop of every test
// from 0.8 to 0.6 (base 10 trials, head 3) and a collapse seen once per side fail it, and the
// comment says which regressions are significant and what the rest would need.
func TestRegressionGateEndToEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		baseTrials      int
		baseRate        float64
		headTrials      int
		headRate        float64
		code            int
		stdout, comment []string
	}{
		{"unchanged agent, unequal trials", 10, 0.8, 3, 0.8, 0,
			[]string{"0 significant regressions", "ran a different number of trials"}, []string{"Suite-level: pooled over 20 tests (exact stratified CMH)", "not significant"}},
		{"every test 0.8 to 0.6", 10, 0.8, 3, 0.6, 1,
			[]string{"gate: FAILURE (fail_on: never; "}, []string{"significant"}},
		{"a collapse seen once per side", 1, 1, 1, 0, 1,
			[]string{"0 significant regressions · 20 changed, not significant", "gate: FAILURE (fail_on: never; the run as a whole regressed significantly against the baseline)"},
			[]string{"— changed, not significant", "a drop this size needs ≈ 6 trials per side", ", significant."}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			baseDir := scriptedSuite(t, uint64(2*i+1), 20, tc.baseTrials, tc.baseRate)
			headDir := scriptedSuite(t, uint64(2*i+2), 20, tc.headTrials, tc.headRate)
			baseOut, headOut := t.TempDir(), t.TempDir()
			if code, _, stderr := invoke(t, "run", "--root", baseDir, "--fail-on", "never", "--out", baseOut, baseDir); code != 0 {
				t.Fatalf("base run: exit %d\n%s", code, stderr)
			}
			code, stdout, stderr := invoke(t, "run", "--root", headDir, "--fail-on", "never", "--out", headOut,
				"--baseline", filepath.Join(baseOut, "results.json"), "--fail-on-regression", headDir)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			comment, err := os.ReadFile(filepath.Join(headOut, "comment.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range tc.comment {
				if !strings.Contains(string(comment), want) {
					t.Errorf("comment lacks %q:\n%s", want, comment)
				}
			}
		})
	}
}

// TestTrialsFlagAndTargetOverride: `--trials 3` completes an execution.trials that sets only a
// strategy, and with `--target other` the comment names other, not the suite's target.
func TestTrialsFlagAndTargetOverride(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"evals/s.eval.yaml": "name: s\nexecution:\n  target: default\n  trials: {strategy: mean}\ntests:\n  - id: a\n    input: go\n    assertions:\n      - type: contains\n        value: PASS\n",
		"targets.yaml":      "targets:\n  - name: default\n    provider: mock\n    response: FAIL\n  - name: other\n    provider: mock\n    response: PASS\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := invoke(t, "run", "--root", dir, dir); code != 2 || !strings.Contains(stderr, "execution.trials needs a count") {
		t.Fatalf("without --trials: exit %d, want the missing count named\n%s", code, stderr)
	}
	out := t.TempDir()
	code, stdout, stderr := invoke(t, "run", "--root", dir, "--trials", "3", "--target", "other", "--out", out, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(comment), "target `other`") || strings.Contains(string(comment), "target `default`") || !strings.Contains(string(comment), "3/3 trials passed") {
		t.Errorf("comment:\n%s", comment)
	}
}

func TestRegressionAlphaFlag(t *testing.T) {
	t.Parallel()
	if code, _, stderr := invoke(t, "run", "--root", "testdata/pass", "--regression-alpha", "1.5", "testdata/pass"); code != 2 || !strings.Contains(stderr, "--regression-alpha must be between 0 and 1") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

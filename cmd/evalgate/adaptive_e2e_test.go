package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// adaptiveTests are the e2e suite's tests; adaptiveCollapsed is the one whose agent breaks
// on the head.
const (
	adaptiveTests     = 8
	adaptiveCollapsed = "t3"
)

// adaptiveSuite: the base runs 10 trials of every test (mean, so that no trial is skipped);
// the head run overrides it with --trials 1 --max-trials 10.
func adaptiveSuite() string {
	var b strings.Builder
	b.WriteString("name: adaptive\nexecution:\n  target: bot\n  trials:\n    count: 10\n    strategy: mean\ntests:\n")
	for i := range adaptiveTests {
		fmt.Fprintf(&b, "  - id: t%d\n    input: Say the word.\n    assertions:\n      - type: contains\n        value: PASS\n", i)
	}
	return b.String()
}

// adaptiveReplies is a scripted agent: for each test and trial (the mock's attempt), "PASS"
// with probability rate(test), "nope" otherwise, drawn from a fixed seed.
func adaptiveReplies(seed uint64, rate func(id string) float64) string {
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	for i := range adaptiveTests {
		id := fmt.Sprintf("t%d", i)
		for attempt := range 10 {
			reply := "nope"
			if rng.Float64() < rate(id) {
				reply = "PASS"
			}
			fmt.Fprintf(&b, `{"test_id": %q, "attempt": %d, "reply": %q}`+"\n", id, attempt, reply)
		}
	}
	return b.String()
}

func adaptiveRepo(t *testing.T, replies string) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"evals/adaptive.eval.yaml": adaptiveSuite(),
		"evals/targets.yaml":       "targets:\n  - name: bot\n    provider: mock\n    replies: bot.jsonl\n",
		"evals/bot.jsonl":          replies,
	})
}

func readRun(t *testing.T, path string) *result.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &run
}

// TestAdaptiveTrialsE2E runs a base of 10 trials per test, then the head with
// `--trials 1 --max-trials 10 --baseline base.json`: the test whose agent collapsed from
// 0.9 to 0 gets trials until its regression is significant; the unchanged tests stop early.
func TestAdaptiveTrialsE2E(t *testing.T) {
	t.Parallel()
	steady := func(string) float64 { return 0.9 }
	baseDir, baseOut := adaptiveRepo(t, adaptiveReplies(1, steady)), t.TempDir()
	// Some base tests fail a trial or two: a mean of 0.9 is a pass, of 0.8 too.
	if code, _, stderr := invoke(t, "run", "--root", baseDir, "--no-cache", "--out", baseOut, baseDir); code != 0 && code != 1 {
		t.Fatalf("base run: exit %d\n%s", code, stderr)
	}
	base := filepath.Join(baseOut, "results.json")
	for _, tr := range readRun(t, base).Suites[0].Tests {
		if tr.TrialSummary == nil || tr.TrialSummary.Ran != 10 {
			t.Fatalf("base %s: %+v", tr.ID, tr.TrialSummary)
		}
	}

	headDir, headOut := adaptiveRepo(t, adaptiveReplies(3, func(id string) float64 {
		if id == adaptiveCollapsed {
			return 0
		}
		return 0.9
	})), t.TempDir()
	code, _, stderr := invoke(t, "run", "--root", headDir, "--no-cache", "--out", headOut,
		"--trials", "1", "--max-trials", "10", "--baseline", base, headDir)
	if code != 1 {
		t.Fatalf("head run: exit %d, want 1 (the collapsed test fails)\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "8 tests from 1 suite, 4 at a time, up to 10 trials each") {
		t.Errorf("start line lacks the max trials:\n%s", stderr)
	}
	run := readRun(t, filepath.Join(headOut, "results.json"))
	ran, more := 0, 0
	for _, tr := range run.Suites[0].Tests {
		s := tr.TrialSummary
		if s == nil || s.MaxTrials != 10 || s.Count != 1 || s.BaseRan != 10 || s.PValue == nil || s.Boundary == nil || len(tr.Trials) != s.Ran {
			t.Fatalf("%s: %+v", tr.ID, s)
		}
		ran += s.Ran
		t.Logf("%s: %d/%d passed; %s", tr.ID, s.Passed, s.Ran, s.Stopped)
		if *s.Level != 0.05/adaptiveTests {
			t.Errorf("%s: level %g, want 0.05 over %d tests", tr.ID, *s.Level, adaptiveTests)
		}
		if tr.ID == adaptiveCollapsed {
			if s.StopReason != result.StopRegression || s.Ran < 2 || *s.PValue > *s.Boundary {
				t.Errorf("collapsed: ran %d, %s: %s", s.Ran, s.StopReason, s.Stopped)
			}
			continue
		}
		// An unchanged test that passed its first trial is decided by it; one that failed it
		// gets more, until it cannot become significant.
		want := result.StopNotWorse
		if tr.Trials[0].Verdict != result.Pass {
			want, more = result.StopCannotBeSignificant, more+1
		}
		if s.StopReason != want || (want == result.StopNotWorse) != (s.Ran == 1) || s.Ran >= 10 {
			t.Errorf("%s (unchanged): ran %d, stopped %q: %s", tr.ID, s.Ran, s.StopReason, s.Stopped)
		}
	}
	// At this seed three unchanged tests failed their first trial (the simulation in
	// internal/stats checks the average: ≤ 2 head trials per test).
	if more != 3 || ran > 4*adaptiveTests {
		t.Errorf("the head ran %d trials for %d tests, %d unchanged ones more than one", ran, adaptiveTests, more)
	}
	comment, err := os.ReadFile(filepath.Join(headOut, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(comment), "of max 10: regression significant") || !strings.Contains(string(comment), "**Adaptive trials:** 1 to 10 trials") {
		t.Errorf("comment lacks the collapsed test's trials:\n%s", comment)
	}

	// Bad flags are usage errors before anything runs.
	for _, flags := range [][]string{{"--max-trials", "101"}, {"--trials", "5", "--max-trials", "3"}, {"--max-trials", "10", "--baseline", filepath.Join(headOut, "missing.json")}} {
		if code, _, stderr := invoke(t, append(append([]string{"run", "--root", headDir, "--no-cache"}, flags...), headDir)...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", flags, code, stderr)
		}
	}
}

package shard

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

var t0 = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)

const testSHA = "0123456789abcdef0123456789abcdef01234567"

// mkSuite is a suite at path with tests of those IDs, in order.
func mkSuite(path string, ids ...string) *suite.Suite {
	s := &suite.Suite{Name: filepath.Base(path), Path: path, Format: suite.FormatAgentV, Target: "default"}
	for i, id := range ids {
		s.Tests = append(s.Tests, &suite.Test{ID: id, Pos: suite.Pos{File: path, Line: 3 + 4*i}})
	}
	return s
}

// matrixSuite is a suite whose tests run on targets x, y and z; the second test only on z, x.
func matrixSuite(path string, ids ...string) *suite.Suite {
	s := mkSuite(path, ids...)
	s.Matrix = []*suite.MatrixTarget{{Name: "x"}, {Name: "y"}, {Name: "z"}}
	if len(s.Tests) > 1 {
		s.Tests[1].Targets = []string{"z", "x"}
	}
	return s
}

// testSuites are a selection exercising every kind of unit.
func testSuites() []*suite.Suite {
	dep := mkSuite("evals/deps.yaml", "setup", "uses-setup", "also-uses", "alone-1", "alone-2")
	dep.Tests[1].DependsOn = []suite.Dependency{{ID: "setup"}}
	dep.Tests[2].DependsOn = []suite.Dependency{{ID: "uses-setup"}}
	ws := mkSuite("evals/shared.yaml", "s1", "s2", "s3")
	ws.Workspace = &suite.Workspace{Isolation: "shared"}
	return []*suite.Suite{
		mkSuite("evals/basic.yaml", "b1", "b2", "b3", "b4", "b5", "b6", "b7"),
		matrixSuite("evals/matrix.yaml", "m1", "m2", "m3"),
		dep, ws,
		mkSuite("evals/empty.yaml"),
	}
}

var testLoadErrors = []*result.SuiteResult{{Name: "broken", Path: "evals/broken.yaml", Error: "evals/broken.yaml:3:1: bad key"}}

// fakeResult is a small realistic result of one row: one judge grader with one criterion,
// its score derived from the row so runs are reproducible, graded by package rubric.
func fakeResult(s *suite.Suite, t *suite.Test, target string) *result.TestResult {
	h := fnv.New32a()
	fmt.Fprint(h, s.Path, t.ID, target)
	v := h.Sum32()
	score := float64(v%11) / 10
	sat := score >= 0.5
	tr := &result.TestResult{Suite: s.Name, ID: t.ID, File: t.Pos.File, Line: t.Pos.Line, Target: target, Matrix: target != "",
		Input: "question " + t.ID, Criteria: "answers " + t.ID, StartedAt: t0.Add(time.Duration(v%1000) * time.Millisecond), DurationMS: int64(100 + v%900),
		Output: &result.Output{Answer: "answer to " + t.ID, Usage: result.Usage{InputTokens: 120, OutputTokens: 40, CostUSD: 0.001}},
		Usage:  result.Usage{InputTokens: 300, OutputTokens: 60, CostUSD: 0.002, Calls: 2},
		Graders: []*result.GraderResult{{Name: "rubric", Type: "rubrics", Score: score, Weight: 1, Verdict: rubric.VerdictOf(score, result.DefaultThresholds), Mode: "checklist",
			Criteria: []*result.CriterionResult{{ID: "correct", Outcome: "is correct", Weight: 1, Satisfied: &sat, Score: score, Verdict: rubric.VerdictOf(score, result.DefaultThresholds), Reasoning: "because"}}}},
	}
	if v%17 == 0 {
		tr.Graders[0].Verdict, tr.Graders[0].Error = result.Error, "judge timed out"
	}
	rubric.Test(tr, result.DefaultThresholds)
	return tr
}

// buildRun is what the engine makes of suites, without running anything: rows in suite,
// test and matrix order, load errors last, summarised by the engine's code.
func buildRun(suites []*suite.Suite, loadErrors []*result.SuiteResult, start, finish time.Time) *result.Run {
	run := &result.Run{SchemaVersion: result.SchemaVersion, StartedAt: start, FinishedAt: finish, Thresholds: result.DefaultThresholds,
		Context: &result.Context{Repository: "o/r", SHA: testSHA, PR: 7}}
	for _, s := range suites {
		sr := &result.SuiteResult{Name: s.Name, Path: s.Path, Format: string(s.Format), Target: plannedSuite(s, false).Target, Tests: []*result.TestResult{}}
		for _, t := range s.Tests {
			runs := s.Runs(t)
			if len(runs) == 0 {
				sr.Tests = append(sr.Tests, fakeResult(s, t, ""))
			}
			for _, target := range runs {
				sr.Tests = append(sr.Tests, fakeResult(s, t, target))
			}
		}
		run.Suites = append(run.Suites, sr)
	}
	for _, le := range loadErrors {
		cp := *le
		run.Suites = append(run.Suites, &cp)
	}
	rubric.SummarizeRun(run)
	return run
}

// writeShard writes shard i of plan into dir as a shard job would: its results (unless
// crashed) and its manifest.
func writeShard(tb testing.TB, dir string, p *Plan, suites []*suite.Suite, i int, sha string, crashed bool) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	spec := Spec{Index: i, Count: p.Count}
	if !crashed {
		// Shard i ran from t0+i s to t0+10s−i s: together they span t0…t0+10s (for i ≥ 1 and
		// shard 1 present; see wantSpan).
		var loadErrors []*result.SuiteResult
		for _, le := range testLoadErrors {
			if slices.Contains(p.LoadErrors, le.Path) {
				loadErrors = append(loadErrors, le)
			}
		}
		run := buildRun(p.Select(suites, i), loadErrors, t0.Add(time.Duration(i-1)*time.Second), t0.Add(time.Duration(11-i)*time.Second))
		run.Shard = spec.String()
		writeJSON(tb, filepath.Join(dir, ResultsFile), run)
	}
	if err := WriteManifest(dir, Manifest{Shard: spec, SHA: sha, Plan: p}); err != nil {
		tb.Fatal(err)
	}
}

func writeJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// writeAll writes every shard of p into dir/shard-i and returns the directories.
func writeAll(tb testing.TB, dir string, p *Plan, suites []*suite.Suite) []string {
	var dirs []string
	for i := 1; i <= p.Count; i++ {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		writeShard(tb, d, p, suites, i, testSHA, false)
		dirs = append(dirs, d)
	}
	return dirs
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

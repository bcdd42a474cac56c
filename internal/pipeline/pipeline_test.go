package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/reports"
)

// runOf is a run of the suites' tests, each passing with score.
func runOf(score float64, suites ...*suite.Suite) *result.Run {
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	run := &result.Run{SchemaVersion: result.SchemaVersion, StartedAt: at, FinishedAt: at.Add(time.Second), Thresholds: result.DefaultThresholds}
	for _, s := range suites {
		sr := &result.SuiteResult{Name: s.Name, Path: s.Path, Format: string(s.Format)}
		for _, t := range s.Tests {
			v := result.Pass
			if score < result.DefaultThresholds.Pass {
				v = result.Fail
			}
			sr.Tests = append(sr.Tests, &result.TestResult{Suite: s.Name, ID: t.ID, Score: score, Verdict: v, Threshold: 0.8, StartedAt: at,
				Graders: []*result.GraderResult{}})
		}
		run.Suites = append(run.Suites, sr)
	}
	rubric.SummarizeRun(run)
	return run
}

func suiteOf(path string, ids ...string) *suite.Suite {
	s := &suite.Suite{Name: strings.TrimSuffix(filepath.Base(path), ".yaml"), Path: path, Format: suite.FormatAgentV}
	for i, id := range ids {
		s.Tests = append(s.Tests, &suite.Test{ID: id, Pos: suite.Pos{File: path, Line: 1 + i}})
	}
	return s
}

func TestConclude(t *testing.T) {
	t.Parallel()
	// Eight single-sample drops: no test alone is significant, the pooled test is (p ≈ 2⁻⁸).
	s := suiteOf("evals/a.yaml", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")
	head, base := runOf(0.85, s), runOf(1, s)
	for _, tc := range []struct {
		name   string
		base   *result.Run
		policy gate.Policy
		want   string
		reason bool
	}{
		{"no baseline", nil, gate.Policy{FailOnRegression: true}, gate.Success, false},
		{"regressions reported", base, gate.Policy{}, gate.Success, false},
		{"regressions fail the gate", base, gate.Policy{FailOnRegression: true}, gate.Failure, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Conclude(head, tc.base, tc.policy)
			if c.Decision.Conclusion != tc.want || (c.Decision.Reason != "") != tc.reason {
				t.Fatalf("decision %+v, want %s (reason %v)", c.Decision, tc.want, tc.reason)
			}
			if (c.Comparison != nil) != (tc.base != nil) || c.Report == nil || c.Run != head {
				t.Fatalf("conclusion %+v", c)
			}
			if tc.base != nil && (c.Comparison.Regressions() != 0 || !c.Comparison.PooledRegression()) {
				t.Fatalf("%d significant test regressions, pooled %+v; want 0 and a significant pooled test", c.Comparison.Regressions(), c.Comparison.Pooled)
			}
		})
	}
}

// TestShardsRoundTrip splits a selection into two shards, writes each shard's partial result
// as a shard job does, and merges them: the merged run holds every test once and the kept
// diffs are copied where the results name them.
func TestShardsRoundTrip(t *testing.T) {
	t.Parallel()
	suites := []*suite.Suite{suiteOf("evals/a.yaml", "a1", "a2", "a3"), suiteOf("evals/b.yaml", "b1")}
	dir := t.TempDir()
	var dirs []string
	for i := 1; i <= 2; i++ {
		sh := &Sharding{Spec: shard.Spec{Index: i, Count: 2}, Salt: "flags"}
		plan, mine, err := sh.Split(suites, nil, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, sh.Label()[:1])
		if i == 1 {
			// A whole diff the shard kept, and a link no shard may smuggle out.
			if err := os.MkdirAll(filepath.Join(out, reports.DirDiffs), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, reports.DirDiffs, "a--a1.diff"), []byte("diff"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/etc/passwd", filepath.Join(out, reports.DirDiffs, "link.diff")); err != nil {
				t.Fatal(err)
			}
		}
		run := runOf(1, mine...)
		run.Shard = sh.Label()
		if err := WritePartial(out, run, shard.Manifest{Shard: sh.Spec, SHA: "abc", Plan: plan}, reports.FilesOptions{}, ""); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{reports.FileResults, shard.ManifestFile} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Fatalf("shard %d: %v", i, err)
			}
		}
		dirs = append(dirs, out)
	}
	report := filepath.Join(dir, "report")
	m, err := Merge(dirs, shard.MergeOptions{SHA: "abc"}, report)
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.Summary.Total != 4 || m.Run.Summary.Passed != 4 || m.Run.Shard != "" || len(m.Report.Missing) != 0 {
		t.Fatalf("merged: summary %+v, shard %q, missing %v", m.Run.Summary, m.Run.Shard, m.Report.Missing)
	}
	if b, err := os.ReadFile(filepath.Join(report, reports.DirDiffs, "a--a1.diff")); err != nil || string(b) != "diff" {
		t.Fatalf("kept diff not copied: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(report, reports.DirDiffs, "link.diff")); err == nil {
		t.Fatal("a link in a shard's diffs was copied")
	}
	if _, err := Merge(dirs, shard.MergeOptions{SHA: "other"}, ""); err == nil {
		t.Fatal("shards of another commit merged")
	}
}

func TestSplitDurationsFile(t *testing.T) {
	t.Parallel()
	sh := &Sharding{Spec: shard.Spec{Index: 1, Count: 2}, Durations: filepath.Join(t.TempDir(), "missing.json")}
	if _, _, err := sh.Split([]*suite.Suite{suiteOf("evals/a.yaml", "a")}, nil, false, 0); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("a missing durations file: %v, want an error naming it", err)
	}
	var none *Sharding
	if none.Label() != "" {
		t.Fatal("an unsharded run has a shard label")
	}
}

// TestPartChecksTheWholeSelection: a shard runs its part and checks every suite, and the
// merge's Replan plans what the shard planned.
func TestPartChecksTheWholeSelection(t *testing.T) {
	t.Parallel()
	suites := []*suite.Suite{suiteOf("evals/a.yaml", "a1", "a2", "a3"), suiteOf("evals/b.yaml", "b1")}
	sh := &Sharding{Spec: shard.Spec{Index: 2, Count: 2}, Salt: "flags"}
	job := Job{Suites: suites}
	plan, err := sh.Part(&job, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, mine, err := sh.Split(suites, nil, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(testIDs(mine), testIDs(job.Suites)); d != "" {
		t.Errorf("the job's suites are not the shard's (-want +got):\n%s", d)
	}
	if d := cmp.Diff(testIDs(suites), testIDs(job.Check)); d != "" {
		t.Errorf("the job checks (-want +got):\n%s", d)
	}
	if n := len(testIDs(job.Suites)); n == 0 || n == 4 {
		t.Errorf("shard 2 of 2 runs %d of the 4 tests", n)
	}
	if job.Shard != "2/2" {
		t.Errorf("shard label %q", job.Shard)
	}
	again, err := Replan(suites, nil, "", false, 0)(2, "flags")
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint != plan.Fingerprint {
		t.Errorf("Replan's plan %s, the shard's %s", again.Fingerprint, plan.Fingerprint)
	}
}

// testIDs names the suites' tests, suite by suite.
func testIDs(suites []*suite.Suite) []string {
	var ids []string
	for _, s := range suites {
		for _, t := range s.Tests {
			ids = append(ids, s.Path+":"+t.ID)
		}
	}
	return ids
}

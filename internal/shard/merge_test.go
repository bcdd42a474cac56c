package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/google/go-cmp/cmp"
)

// unsharded is the run of the whole selection, spanning what the shards together span.
func unsharded(suites []*suite.Suite) *result.Run {
	return buildRun(suites, testLoadErrors, t0, t0.Add(10*time.Second))
}

func TestMergeEqualsUnshardedRun(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 4, 30} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			suites := testSuites()
			p := NewPlan(suites, testLoadErrors, n, Options{Salt: "x"})
			dirs := writeAll(t, t.TempDir(), p, suites)
			got, rep, err := Merge(dirs, MergeOptions{SHA: testSHA})
			if err != nil {
				t.Fatal(err)
			}
			if want := mustJSON(t, unsharded(suites)); mustJSON(t, got) != want {
				t.Fatalf("merged run differs from the unsharded run:\n%s\nwant\n%s", mustJSON(t, got), want)
			}
			if len(rep.Missing) != 0 || len(rep.Shards) != n || len(rep.Empty) != 0 {
				t.Fatalf("report %+v, want %d shards and none missing", rep, n)
			}
			for i, f := range rep.Shards {
				if f.Shard != (Spec{i + 1, n}) || f.Dir != dirs[i] || !f.Results {
					t.Fatalf("report shard %d: %+v", i, f)
				}
			}
		})
	}
}

// TestMergeEqualsUnshardedRunDeepEqual holds the merged run to the unsharded one field by
// field, after the same JSON round trip results.json gives it.
func TestMergeEqualsUnshardedRunDeepEqual(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	p := NewPlan(suites, testLoadErrors, 4, Options{})
	got, _, err := Merge(writeAll(t, t.TempDir(), p, suites), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, ResultsFile), unsharded(suites))
	want, err := readResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("merged run differs from the unsharded run (-unsharded +merged):\n%s", diff)
	}
}

func TestMergeMissingAndCrashedShards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		write   func(t *testing.T, dir string, p *Plan, suites []*suite.Suite) []string
		missing []int
		why     map[int]string
	}{
		{"a shard's artifact is missing", func(t *testing.T, dir string, p *Plan, suites []*suite.Suite) []string {
			dirs := writeAll(t, dir, p, suites)
			if err := os.RemoveAll(dirs[2]); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, []int{3}, map[int]string{3: "shard 3/4 reported no results (its job is missing or crashed); this test was not run"}},
		{"a shard crashed before writing results", func(t *testing.T, dir string, p *Plan, suites []*suite.Suite) []string {
			dirs := writeAll(t, dir, p, suites)
			writeShard(t, dirs[1], p, suites, 2, testSHA, true)
			if err := os.Remove(filepath.Join(dirs[1], ResultsFile)); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, []int{2}, map[int]string{2: "shard 2/4 reported no results (its job is missing or crashed); this test was not run"}},
		{"a shard left tests out", func(t *testing.T, dir string, p *Plan, suites []*suite.Suite) []string {
			dirs := writeAll(t, dir, p, suites)
			run, err := readResults(dirs[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, sr := range run.Suites {
				if len(sr.Tests) > 0 {
					sr.Tests = sr.Tests[:len(sr.Tests)-1]
				}
			}
			writeJSON(t, filepath.Join(dirs[0], ResultsFile), run)
			return dirs
		}, nil, map[int]string{1: "shard 1/4 did not report this test"}},
		{"only one shard", func(t *testing.T, dir string, p *Plan, suites []*suite.Suite) []string {
			d := filepath.Join(dir, "only")
			writeShard(t, d, p, suites, 4, testSHA, false)
			return []string{d}
		}, []int{1, 2, 3}, map[int]string{1: "shard 1/4 reported no results", 2: "shard 2/4 reported no results", 3: "shard 3/4 reported no results"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			suites := testSuites()
			p := NewPlan(suites, testLoadErrors, 4, Options{})
			got, rep, err := Merge(tt.write(t, t.TempDir(), p, suites), MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.Missing, tt.missing) {
				t.Fatalf("missing %v, want %v", rep.Missing, tt.missing)
			}
			if got.Summary.Verdict != result.Error || got.Summary.Total != 23 {
				t.Fatalf("summary %+v, want 23 rows and verdict error", got.Summary)
			}
			shards := map[string]int{}
			for _, s := range p.Suites {
				for _, pt := range s.Tests {
					shards[s.Path+":"+pt.ID] = pt.Shard
				}
			}
			errs := 0
			for _, sr := range got.Suites[:len(p.Suites)] {
				for _, tr := range sr.Tests {
					shard := shards[sr.Path+":"+tr.ID]
					why, isMissing := tt.why[shard]
					if !isMissing || !strings.Contains(tr.Error, "did not report") && !strings.Contains(tr.Error, "reported no results") {
						if strings.Contains(tr.Error, "shard ") {
							t.Fatalf("%s: %s@%s blames a shard: %s", sr.Path, tr.ID, tr.Target, tr.Error)
						}
						continue
					}
					errs++
					if tr.Verdict != result.Error || tr.FailureStage != result.StageSetup || !strings.HasPrefix(tr.Error, why) || tr.Suite != sr.Name || tr.Line == 0 {
						t.Fatalf("%s: %+v, want an error at setup starting %q", sr.Path, tr, why)
					}
					if (tr.Target != "") != tr.Matrix || sr.Path == "evals/matrix.yaml" && tr.Target == "" {
						t.Fatalf("%s: matrix row without its target: %+v", sr.Path, tr)
					}
				}
			}
			if errs == 0 {
				t.Fatal("no row names the missing shard")
			}
			if last := got.Suites[len(got.Suites)-1]; last.Path != "evals/broken.yaml" || last.Error == "" {
				t.Fatalf("load error not kept: %+v", last)
			}
		})
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		write func(t *testing.T, dir string) []string
		opts  MergeOptions
		want  []string
	}{
		{"nothing found", func(t *testing.T, dir string) []string {
			return []string{dir, filepath.Join(dir, "absent")}
		}, MergeOptions{}, []string{"no shard.json in", "absent"}},
		{"duplicate index", func(t *testing.T, dir string) []string {
			suites := testSuites()
			p := NewPlan(suites, nil, 2, Options{})
			dirs := writeAll(t, dir, p, suites)
			writeShard(t, filepath.Join(dir, "again"), p, suites, 2, testSHA, false)
			return append(dirs, filepath.Join(dir, "again"))
		}, MergeOptions{}, []string{"shard 2/2 found twice", "shard-2", "again", "refusing"}},
		{"different fingerprints", func(t *testing.T, dir string) []string {
			suites := testSuites()
			a := NewPlan(suites, nil, 2, Options{Salt: "--trials 1"})
			b := NewPlan(suites, nil, 2, Options{Salt: "--trials 3"})
			writeShard(t, filepath.Join(dir, "a"), a, suites, 1, testSHA, false)
			writeShard(t, filepath.Join(dir, "b"), b, suites, 2, testSHA, false)
			return []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
		}, MergeOptions{}, []string{"different fingerprints", "/a and ", "/b", "the shards did not select the same tests — run every shard of one workflow run on the same commit with the same inputs"}},
		{"different counts", func(t *testing.T, dir string) []string {
			suites := testSuites()
			writeShard(t, filepath.Join(dir, "a"), NewPlan(suites, nil, 2, Options{}), suites, 1, testSHA, false)
			writeShard(t, filepath.Join(dir, "b"), NewPlan(suites, nil, 3, Options{}), suites, 2, testSHA, false)
			return []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
		}, MergeOptions{}, []string{"split into 2 and 3 shards"}},
		{"different commits", func(t *testing.T, dir string) []string {
			suites := testSuites()
			p := NewPlan(suites, nil, 2, Options{})
			writeShard(t, filepath.Join(dir, "a"), p, suites, 1, testSHA, false)
			writeShard(t, filepath.Join(dir, "b"), p, suites, 2, "feedface", false)
			return []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
		}, MergeOptions{}, []string{"graded different commits", testSHA, "feedface"}},
		{"not the expected commit", func(t *testing.T, dir string) []string {
			suites := testSuites()
			return writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
		}, MergeOptions{SHA: "feedface"}, []string{"graded commit " + testSHA + ", not feedface"}},
		{"malformed results", func(t *testing.T, dir string) []string {
			suites := testSuites()
			dirs := writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
			if err := os.WriteFile(filepath.Join(dirs[1], ResultsFile), []byte(`{"suites": [`), 0o644); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, MergeOptions{}, []string{"shard-2/results.json"}},
		{"not a results.json", func(t *testing.T, dir string) []string {
			suites := testSuites()
			dirs := writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
			if err := os.WriteFile(filepath.Join(dirs[0], ResultsFile), []byte(`{"suites": []}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, MergeOptions{}, []string{"shard-1/results.json", "not an evalgate results.json"}},
		{"malformed manifest", func(t *testing.T, dir string) []string {
			suites := testSuites()
			dirs := writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
			if err := os.WriteFile(filepath.Join(dirs[0], ManifestFile), []byte(`{"version": 1,`), 0o644); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, MergeOptions{}, []string{"shard-1/shard.json"}},
		{"edited plan", func(t *testing.T, dir string) []string {
			suites := testSuites()
			p := NewPlan(suites, nil, 2, Options{})
			dirs := writeAll(t, dir, p, suites)
			edited := *p
			edited.Suites = edited.Suites[1:]
			if err := WriteManifest(dirs[0], Manifest{Shard: Spec{1, 2}, SHA: testSHA, Plan: &edited}); err != nil {
				t.Fatal(err)
			}
			return dirs
		}, MergeOptions{}, []string{"shard-1/shard.json", "does not match its fingerprint"}},
		{"a test not planned for the shard", func(t *testing.T, dir string) []string {
			suites := testSuites()
			p := NewPlan(suites, nil, 2, Options{})
			dirs := writeAll(t, dir, p, suites)
			// Shard 1's results claim shard 2's tests as well.
			run := buildRun(suites, nil, t0, t0)
			run.Shard = "1/2"
			writeJSON(t, filepath.Join(dirs[0], ResultsFile), run)
			return dirs
		}, MergeOptions{}, []string{"shard-1/results.json", "was not planned for this shard"}},
		{"a test nobody planned", func(t *testing.T, dir string) []string {
			suites := testSuites()
			dirs := writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
			run, err := readResults(dirs[1])
			if err != nil {
				t.Fatal(err)
			}
			run.Suites[0].Tests = append(run.Suites[0].Tests, &result.TestResult{ID: "stowaway", Verdict: result.Pass})
			writeJSON(t, filepath.Join(dirs[1], ResultsFile), run)
			return dirs
		}, MergeOptions{}, []string{"shard-2/results.json", "stowaway is not in the plan"}},
		{"results of another shard", func(t *testing.T, dir string) []string {
			suites := testSuites()
			dirs := writeAll(t, dir, NewPlan(suites, nil, 2, Options{}), suites)
			run, err := readResults(dirs[1])
			if err != nil {
				t.Fatal(err)
			}
			run.Shard = "1/2"
			writeJSON(t, filepath.Join(dirs[1], ResultsFile), run)
			return dirs
		}, MergeOptions{}, []string{"says it is shard 1/2", "says 2/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, _, err := Merge(tt.write(t, t.TempDir()), tt.opts)
			if err == nil {
				t.Fatalf("merged, want an error; verdict %s", run.Summary.Verdict)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestMergeFindsShardsInSubdirectories(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	p := NewPlan(suites, testLoadErrors, 3, Options{})
	root := t.TempDir()
	// As actions/download-artifact lays them out: one directory per artifact, in any order,
	// next to an artifact that is no shard. Shard 3 is linked into place from elsewhere.
	for i, name := range []string{"elsewhere/evalgate-shard-3", "artifacts/evalgate-shard-1", "artifacts/evalgate-shard-2"} {
		writeShard(t, filepath.Join(root, name), p, suites, []int{3, 1, 2}[i], testSHA, false)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere", "evalgate-shard-3"), filepath.Join(root, "artifacts", "evalgate-shard-3")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "artifacts", "coverage"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The second shard is named twice, via its parent and itself, and the third via its link
	// and its own name: one copy each, not duplicates.
	got, rep, err := Merge([]string{filepath.Join(root, "artifacts"), filepath.Join(root, "nothing-here"), filepath.Join(root, "artifacts", "evalgate-shard-2"),
		filepath.Join(root, "elsewhere", "evalgate-shard-3")}, MergeOptions{SHA: testSHA})
	if err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, got) != mustJSON(t, unsharded(suites)) {
		t.Fatal("merged run differs from the unsharded run")
	}
	var dirs []string
	for _, f := range rep.Shards {
		dirs = append(dirs, filepath.Base(f.Dir))
	}
	if !slices.Equal(dirs, []string{"evalgate-shard-1", "evalgate-shard-2", "evalgate-shard-3"}) || len(rep.Missing) != 0 {
		t.Fatalf("found %v (missing %v), want the three shards by index", dirs, rep.Missing)
	}
	if !slices.Equal(rep.Empty, []string{filepath.Join(root, "nothing-here")}) {
		t.Fatalf("empty %v, want the directory with no shard", rep.Empty)
	}
}

func TestMergeAddsBudgets(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	p := NewPlan(suites, nil, 2, Options{})
	dirs := writeAll(t, t.TempDir(), p, suites)
	for i, b := range []result.Budget{{LimitUSD: 1, SpentUSD: 0.25, NotRun: 0}, {LimitUSD: 1, SpentUSD: 1.5, NotRun: 3}} {
		run, err := readResults(dirs[i])
		if err != nil {
			t.Fatal(err)
		}
		run.Budget = &b
		writeJSON(t, filepath.Join(dirs[i], ResultsFile), run)
	}
	got, _, err := Merge(dirs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (result.Budget{LimitUSD: 2, SpentUSD: 1.75, NotRun: 3}); got.Budget == nil || *got.Budget != want {
		t.Fatalf("budget %+v, want %+v", got.Budget, want)
	}
	if got.Shard != "" || got.Summary.DurationMS != 10000 {
		t.Fatalf("merged run: shard %q, duration %d ms; want no shard and the shards' span, 10 s", got.Shard, got.Summary.DurationMS)
	}
}

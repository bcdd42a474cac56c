package shard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// replanner is the merge's own plan of testSuites, as a merge job computes it from its
// checkout.
func replanner(suites []*suite.Suite) func(int, string) (*Plan, error) {
	return func(count int, salt string) (*Plan, error) {
		return NewPlan(suites, testLoadErrors, count, Options{Salt: salt}), nil
	}
}

// TestMergeReplanAcceptsHonestShards: shards of the merge's own plan merge as before.
func TestMergeReplanAcceptsHonestShards(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	p := NewPlan(suites, testLoadErrors, 4, Options{Salt: "x"})
	got, rep, err := Merge(writeAll(t, t.TempDir(), p, suites), MergeOptions{SHA: testSHA, Replan: replanner(suites)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 0 || len(rep.Missing) != 0 {
		t.Fatalf("report %+v: honest shards refused", rep)
	}
	if want := mustJSON(t, unsharded(suites)); mustJSON(t, got) != want {
		t.Fatal("merged run differs from the unsharded run")
	}
}

// TestMergeReplanRefusesForgedShards writes shards whose artifacts were forged by the job
// that ran them, and checks that each forged shard is refused with its reason and its tests
// are errors, while the honest shards' results stand.
func TestMergeReplanRefusesForgedShards(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	tests := []struct {
		name   string
		forge  func(t *testing.T, dirs []string, honest *Plan)
		reason string
	}{
		{"plan of fewer tests, fingerprint recomputed", func(t *testing.T, dirs []string, honest *Plan) {
			// The forger drops a suite from the selection and plans every shard anew: its
			// plan is self-consistent, and every shard would agree with it.
			fewer := NewPlan(suites[1:], testLoadErrors, honest.Count, Options{Salt: "x"})
			for i, d := range dirs {
				os.RemoveAll(d)
				writeShard(t, d, fewer, suites[1:], i+1, testSHA, false)
			}
		}, "leaves out test evals/basic.yaml"},
		{"plan claiming another shard's test", func(t *testing.T, dirs []string, honest *Plan) {
			forged := NewPlan(suites, testLoadErrors, honest.Count, Options{Salt: "x"})
			for i := range forged.Suites[0].Tests {
				forged.Suites[0].Tests[i].Shard = 1
			}
			forged.Fingerprint = forged.fingerprint()
			os.RemoveAll(dirs[0])
			writeShard(t, dirs[0], forged, suites, 1, testSHA, false)
		}, "it claims test"},
		{"results for a test the plan does not give it", func(t *testing.T, dirs []string, honest *Plan) {
			// The manifest is the honest one; results.json adds a passing row of another
			// shard's test.
			other := honest.Select(suites, 2)
			extra := buildRun(other, nil, t0, t0)
			run := buildRun(honest.Select(suites, 1), nil, t0, t0)
			run.Suites = append(run.Suites, extra.Suites...)
			run.Shard = "1/4"
			writeJSON(t, filepath.Join(dirs[0], ResultsFile), run)
		}, "was not planned for this shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			honest := NewPlan(suites, testLoadErrors, 4, Options{Salt: "x"})
			dirs := writeAll(t, t.TempDir(), honest, suites)
			tt.forge(t, dirs, honest)
			got, rep, err := Merge(dirs, MergeOptions{SHA: testSHA, Replan: replanner(suites)})
			if err != nil {
				t.Fatalf("merge: %v", err)
			}
			if len(rep.Refused) == 0 || !strings.Contains(rep.Refused[0].Reason, tt.reason) {
				t.Fatalf("refused %+v, want a refusal saying %q", rep.Refused, tt.reason)
			}
			refused := map[int]bool{}
			for _, r := range rep.Refused {
				refused[r.Shard.Index] = true
			}
			// Every row of the merge's plan is there; a refused shard's rows are errors.
			rows := 0
			for si, ps := range honest.Suites {
				r := 0
				for _, pt := range ps.Tests {
					for range max(len(pt.Rows), 1) {
						tr := got.Suites[si].Tests[r]
						if refused[pt.Shard] && (tr.Verdict != result.Error || !strings.Contains(tr.Error, "was refused")) {
							t.Errorf("%s of refused shard %d: %s %q, want an error", pt.ID, pt.Shard, tr.Verdict, tr.Error)
						}
						r++
						rows++
					}
				}
			}
			if got.Summary.Total != rows {
				t.Errorf("%d rows merged, want the merge's plan's %d", got.Summary.Total, rows)
			}
			if got.Summary.Errors == 0 {
				t.Error("no errors: a refused shard's tests passed")
			}
		})
	}
}

// TestMergeReplanWithoutOneTakesTheShardsPlan shows what the re-plan adds: the same forged
// shards merge without it.
func TestMergeReplanWithoutOneTakesTheShardsPlan(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	fewer := NewPlan(suites[1:], testLoadErrors, 2, Options{})
	dirs := writeAll(t, t.TempDir(), fewer, suites[1:])
	if _, _, err := Merge(dirs, MergeOptions{}); err != nil {
		t.Fatalf("without a re-plan the shards' own plan merges: %v", err)
	}
	_, rep, err := Merge(dirs, MergeOptions{Replan: replanner(suites)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 2 {
		t.Fatalf("refused %+v, want both shards", rep.Refused)
	}
}

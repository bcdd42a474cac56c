package shard

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// bigSelection is 10,000 tests in 20 suites of 500.
func bigSelection() []*suite.Suite {
	var suites []*suite.Suite
	for s := range 20 {
		ids := make([]string, 500)
		for i := range ids {
			ids[i] = fmt.Sprintf("case-%04d", i)
		}
		suites = append(suites, mkSuite(fmt.Sprintf("evals/area-%02d.yaml", s), ids...))
	}
	return suites
}

// writeBig writes 4 shards of the big selection and returns their directories and the
// unsharded run's summary.
func writeBig(tb testing.TB) ([]string, result.Summary) {
	suites := bigSelection()
	p := NewPlan(suites, nil, 4, Options{})
	dirs := writeAll(tb, tb.TempDir(), p, suites)
	return dirs, buildRun(suites, nil, t0, t0.Add(10*time.Second)).Summary
}

func TestMerge10000(t *testing.T) {
	t.Parallel()
	dirs, want := writeBig(t)
	got, rep, err := Merge(dirs, MergeOptions{SHA: testSHA})
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary.Total != 10000 || len(rep.Missing) != 0 {
		t.Fatalf("%d rows merged, %v missing; want 10000 and none", got.Summary.Total, rep.Missing)
	}
	if got.Summary != want {
		t.Fatalf("summary %+v, want the unsharded %+v", got.Summary, want)
	}
	if want.Passed == 0 || want.Failed == 0 || want.Errors == 0 {
		t.Fatalf("the fake results should mix verdicts: %+v", want)
	}
	// Without one shard a quarter of the rows are errors and the run is one.
	got, _, err = Merge([]string{dirs[0], dirs[1], dirs[3], filepath.Join(t.TempDir(), "gone")}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary.Verdict != result.Error || got.Summary.Errors < 2500 || got.Summary.Total != 10000 {
		t.Fatalf("without shard 3: %+v, want 10000 rows, ≥ 2500 errors, verdict error", got.Summary)
	}
}

// BenchmarkMerge10000 merges 4 shards of 10,000 small results (one judge grader with one
// criterion each), files read from disk included.
func BenchmarkMerge10000(b *testing.B) {
	dirs, _ := writeBig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Merge(dirs, MergeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewPlan10000 plans 10,000 tests onto 4 shards.
func BenchmarkNewPlan10000(b *testing.B) {
	suites := bigSelection()
	b.ReportAllocs()
	for b.Loop() {
		NewPlan(suites, nil, 4, Options{})
	}
}

package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/reports"
)

// bigDiff is a target whose agent rewrote a large tree: every answer carries a diff of size n.
type bigDiff struct{ n int }

func (d bigDiff) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	var b strings.Builder
	b.Grow(d.n + 200)
	for f := 0; b.Len() < d.n; f++ {
		fmt.Fprintf(&b, "diff --git a/src/%s/f%04d.go b/src/%s/f%04d.go\n--- a/src/%s/f%04d.go\n+++ b/src/%s/f%04d.go\n@@ -1,40 +1,40 @@\n",
			req.Test.ID, f, req.Test.ID, f, req.Test.ID, f, req.Test.ID, f)
		for l := range 40 {
			fmt.Fprintf(&b, "-\told := %d // the line as it was before the agent touched it\n+\tnew := %d // the line as the agent left it\n", l, l)
		}
	}
	return &result.Output{Answer: "rewrote " + req.Test.ID, FileChanges: b.String()}, nil
}

// passGrader passes every test at once: the benchmark measures what the run keeps, not grading.
type passGrader struct{}

func (passGrader) Grade(_ context.Context, in *grader.Input) *result.GraderResult {
	return &result.GraderResult{Name: "diff", Type: "code-grader", Score: 1, Weight: 1, Verdict: result.Pass,
		Reasoning: fmt.Sprintf("saw %d bytes of changes", len(in.Output.FileChanges))}
}

// BenchmarkBigDiffs runs 16 tests whose agents each leave a 5 MB diff, at 4 workers, keeps the
// whole diffs in the report directory and writes every report, as `evalgate run --out` does. It reports the peak live heap and the process's
// peak RSS during the run and the report writing, and the size of results.json.
func BenchmarkBigDiffs(b *testing.B) {
	const tests, diffBytes = 16, 5 << 20
	s := &suite.Suite{Name: "rewrite", Path: "evals/rewrite.eval.yaml"}
	for i := range tests {
		s.Tests = append(s.Tests, &suite.Test{ID: fmt.Sprintf("t%02d", i), Input: []suite.Message{{Role: "user", Content: "rewrite it"}},
			Graders: []*suite.Grader{{Name: "diff", Type: "code-grader", Weight: 1}}})
	}
	cfg := engine.Config{
		Workers: 4,
		Target: func(*suite.Suite, *suite.Test) (target.Target, string, error) {
			return bigDiff{n: diffBytes}, "agent", nil
		},
		Grader: func(*suite.Suite, *suite.Test, *suite.Grader) (grader.Grader, error) { return passGrader{}, nil },
	}
	dir := b.TempDir()
	cfg.KeepDiff = reports.DiffFiles(dir, "", nil)
	var peakHeap, peakRSS, resultsBytes float64
	for b.Loop() {
		runtime.GC()
		resetPeakRSS()
		stop := samplePeakHeap()
		run, err := engine.Run(b.Context(), []*suite.Suite{s}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := reports.NewReport(run, nil).WriteAll(dir, reports.FilesOptions{}); err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(run)
		peakHeap = max(peakHeap, float64(stop())/(1<<20))
		peakRSS = max(peakRSS, float64(readPeakRSS())/(1<<20))
		if fi, err := os.Stat(dir + "/" + reports.FileResults); err == nil {
			resultsBytes = float64(fi.Size()) / (1 << 20)
		}
	}
	b.ReportMetric(peakHeap, "peak-heap-MB")
	b.ReportMetric(peakRSS, "peak-RSS-MB")
	b.ReportMetric(resultsBytes, "results.json-MB")
}

// samplePeakHeap samples the live heap every 100 µs until the returned func is called, which
// returns the largest value seen.
func samplePeakHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}

// resetPeakRSS resets the kernel's high-water mark of this process's RSS (Linux: writing 5 to
// clear_refs); elsewhere it does nothing and readPeakRSS reports 0.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// readPeakRSS is VmHWM from /proc/self/status, in bytes (0 when unknown).
func readPeakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

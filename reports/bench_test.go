package reports

import (
	"syscall"
	"testing"
	"time"
)

// The report benchmarks render a 5,000-test run (bigRun: six suites, four criteria a test,
// long reasoning and answers), the size at which the comment and the summary must be cut to
// fit GitHub's limits.

const benchTests = 5000

// cpuTime is the process's user and system CPU time so far. The benchmarks report it per op
// (cpu-ms/op) next to wall time, which on a shared machine mostly measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs op b.N times and reports its CPU time per op.
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkReports5000 writes every report file of a 5,000-test run, as `evalgate run --out`
// and the action do.
func BenchmarkReports5000(b *testing.B) {
	run := bigRun(benchTests)
	dir := b.TempDir()
	opts := FilesOptions{Comment: CommentOptions{Marker: "<!-- evalgate:comment key=bench -->"}}
	loop(b, func() {
		if err := NewReport(run, nil).WriteAll(dir, opts); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkComment5000 renders the sticky comment of a 5,000-test run into 64 KiB.
func BenchmarkComment5000(b *testing.B) {
	run := bigRun(benchTests)
	loop(b, func() {
		if s := NewReport(run, nil).Comment(CommentOptions{}); len(s) > MaxCommentBytes {
			b.Fatalf("comment is %d bytes", len(s))
		}
	})
}

// BenchmarkSummary5000 renders the step summary of a 5,000-test run into ~1 MiB.
func BenchmarkSummary5000(b *testing.B) {
	run := bigRun(benchTests)
	loop(b, func() {
		if s := NewReport(run, nil).StepSummary(SummaryOptions{}); len(s) > maxStepSummaryBytes {
			b.Fatalf("summary is %d bytes", len(s))
		}
	})
}

// BenchmarkCheckRun5000 renders the check run's output of a 5,000-test run.
func BenchmarkCheckRun5000(b *testing.B) {
	run := bigRun(benchTests)
	loop(b, func() {
		if co := NewReport(run, nil).CheckRun(CheckOptions{}); len(co.Summary) > MaxCheckTextBytes {
			b.Fatalf("summary is %d bytes", len(co.Summary))
		}
	})
}

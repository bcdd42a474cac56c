package reports

import (
	"testing"
)

// The report benchmarks render a 5,000-test run (bigRun: six suites, four criteria a test,
// long reasoning and answers), the size at which the comment and the summary must be cut to
// fit GitHub's limits.

const benchTests = 5000

// BenchmarkReports5000 writes every report file of a 5,000-test run, as `evalgate run --out`
// and the action do.
func BenchmarkReports5000(b *testing.B) {
	run := bigRun(benchTests)
	dir := b.TempDir()
	opts := FilesOptions{Comment: CommentOptions{Marker: "<!-- evalgate:comment key=bench -->"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteAll(dir, run, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComment5000 renders the sticky comment of a 5,000-test run into 64 KiB.
func BenchmarkComment5000(b *testing.B) {
	run := bigRun(benchTests)
	b.ReportAllocs()
	for b.Loop() {
		if s := Comment(run, CommentOptions{}); len(s) > MaxCommentBytes {
			b.Fatalf("comment is %d bytes", len(s))
		}
	}
}

// BenchmarkSummary5000 renders the step summary of a 5,000-test run into ~1 MiB.
func BenchmarkSummary5000(b *testing.B) {
	run := bigRun(benchTests)
	b.ReportAllocs()
	for b.Loop() {
		if s := StepSummary(run, SummaryOptions{}); len(s) > MaxStepSummaryBytes {
			b.Fatalf("summary is %d bytes", len(s))
		}
	}
}

// BenchmarkCheckRun5000 renders the check run's output of a 5,000-test run.
func BenchmarkCheckRun5000(b *testing.B) {
	run := bigRun(benchTests)
	b.ReportAllocs()
	for b.Loop() {
		co := CheckRun(run, CheckOptions{})
		if len(co.Summary) > MaxCheckTextBytes {
			b.Fatalf("summary is %d bytes", len(co.Summary))
		}
	}
}

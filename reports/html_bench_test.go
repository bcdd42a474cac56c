package reports

import (
	"testing"

	"github.com/evalgate/evalgate/internal/gate"
)

// countingWriter counts what is written, so the benchmark reports the page's size.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkHTML5000 renders report.html of a 5,000-test run (bigRun) and reports its size.
func BenchmarkHTML5000(b *testing.B) {
	rep := NewReport(bigRun(benchTests), nil)
	var w countingWriter
	loop(b, func() {
		w.n = 0
		if err := rep.writeHTML(&w, gate.Decision{}); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(w.n)/(1<<20), "MiB")
}

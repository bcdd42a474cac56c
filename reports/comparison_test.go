package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// TestWriteComparisonEscapes: suite and test names are repository text; none reaches the
// terminal as an escape sequence or breaks a Markdown table.
func TestWriteComparisonEscapes(t *testing.T) {
	t.Parallel()
	run := func(score float64) *result.Run {
		return &result.Run{SchemaVersion: result.SchemaVersion, Suites: []*result.SuiteResult{{Name: "s|\x1b[31mred",
			Tests: []*result.TestResult{{ID: "a|b\nc", Score: score, Verdict: result.Pass}}}}}
	}
	c := compare.Compare(run(1), run(0.5), compare.Options{})
	for _, f := range ComparisonFormats {
		var buf bytes.Buffer
		if err := WriteComparison(&buf, c, ComparisonInfo{Base: "b\x1b]0;x\x07", Head: "h"}, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := buf.String()
		if f != "json" && strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s: an escape sequence reached the output: %q", f, out)
		}
		if f == "markdown" && !strings.Contains(out, `| s\|`) {
			t.Errorf("markdown: the suite's | is not escaped:\n%s", out)
		}
	}
	if err := WriteComparison(&bytes.Buffer{}, c, ComparisonInfo{}, "xml"); err == nil {
		t.Error("an unknown format was written")
	}
}

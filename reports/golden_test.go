package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/result"
)

const testMarker = "<!-- evalgate:comment key=evals/gate -->"

type goldenCase struct {
	name     string
	run      func(t *testing.T) *result.Run
	base     string // baseline fixture, "" = none
	skipWide bool   // only the comment is a golden: the other reports are too big to review
}

var goldenCases = []goldenCase{
	{name: "all-pass", run: func(t *testing.T) *result.Run { return loadRun(t, "all-pass") }},
	{name: "mixed", run: func(t *testing.T) *result.Run { return loadRun(t, "mixed") }},
	{name: "baseline", run: func(t *testing.T) *result.Run { return loadRun(t, "mixed") }, base: "base"},
	{name: "hostile", run: func(t *testing.T) *result.Run { return loadRun(t, "hostile") }},
	{name: "large", run: func(*testing.T) *result.Run { return bigRun(300) }, skipWide: true},
}

// TestGolden renders every fixture to every report and compares with testdata/golden.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := tc.run(t)
			var cmpr *compare.Comparison
			if tc.base != "" {
				cmpr = compare.Compare(loadRun(t, tc.base), run, compare.Options{})
			}
			rep := NewReport(run, cmpr)
			comment := rep.Comment(CommentOptions{
				Marker:     testMarker,
				CheckURL:   "https://github.com/acme/agents/runs/123456789",
				RunURL:     "https://github.com/acme/agents/actions/runs/9876543210",
				ReportHint: "the job summary and the evalgate-report artifact",
			})
			checkMarkdown(t, comment, true)
			if len(comment) > MaxCommentBytes {
				t.Errorf("comment is %d bytes, limit %d", len(comment), MaxCommentBytes)
			}
			golden.Check(t, goldenPath(tc.name+"/comment.md"), comment, *update)

			sum := rep.StepSummary(SummaryOptions{RunURL: "https://github.com/acme/agents/actions/runs/9876543210"})
			checkMarkdown(t, sum, false)
			if len(sum) > maxStepSummaryBytes {
				t.Errorf("summary is %d bytes, limit %d", len(sum), maxStepSummaryBytes)
			}
			if !tc.skipWide {
				golden.Check(t, goldenPath(tc.name+"/summary.md"), sum, *update)
			}

			co := rep.CheckRun(CheckOptions{RunURL: "https://github.com/acme/agents/actions/runs/9876543210"})
			checkMarkdown(t, co.Summary, false)
			checkMarkdown(t, co.Text, false)
			if len(co.Summary) > MaxCheckTextBytes || len(co.Text) > MaxCheckTextBytes {
				t.Errorf("check summary %d / text %d bytes, limit %d", len(co.Summary), len(co.Text), MaxCheckTextBytes)
			}
			js, err := json.MarshalIndent(co, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !tc.skipWide {
				golden.Check(t, goldenPath(tc.name+"/check-run.json"), string(js)+"\n", *update)
			}

			var tbl bytes.Buffer
			if err := rep.Table(&tbl, TableOptions{}); err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(tbl.String(), "\x1b\a\r") {
				t.Errorf("terminal table carries control characters")
			}
			if !tc.skipWide {
				golden.Check(t, goldenPath(tc.name+"/table.txt"), tbl.String(), *update)
			}

			var idx, junit bytes.Buffer
			if err := WriteIndex(&idx, run); err != nil {
				t.Fatal(err)
			}
			if err := writeJUnit(&junit, run, JUnitOptions{}); err != nil {
				t.Fatal(err)
			}
			if !tc.skipWide {
				golden.Check(t, goldenPath(tc.name+"/index.jsonl"), idx.String(), *update)
				golden.Check(t, goldenPath(tc.name+"/junit.xml"), junit.String(), *update)
			}
		})
	}
}

package reports

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// TestCommentBudget cuts the 300-test run to ever smaller budgets and checks the order things
// go in: passing tests first, then details, then rows, then the bare skeleton.
func TestCommentBudget(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	tests := []struct {
		max       int
		collapsed bool // passing tests folded
		details   bool // some <details> kept
		rowsCut   bool // some tests' rows left out
		marker    bool
	}{
		{max: 4 << 20, details: true, marker: true},
		{max: MaxCommentBytes, collapsed: true, details: true, marker: true},
		{max: 37_500, collapsed: true, marker: true},
		{max: 12_000, collapsed: true, rowsCut: true, marker: true},
		{max: 3_000, collapsed: true, rowsCut: true, marker: true},
		{max: 700, marker: true},
		{max: 40},
		{max: 1},
	}
	for _, tc := range tests {
		t.Run(thousands(int64(tc.max)), func(t *testing.T) {
			t.Parallel()
			got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker, MaxBytes: tc.max, ReportHint: "the job summary"})
			if len(got) > tc.max {
				t.Fatalf("%d bytes, budget %d", len(got), tc.max)
			}
			checkMarkdown(t, got, tc.marker)
			if c := strings.Contains(got, "passing tests collapsed"); c != tc.collapsed && tc.max > 3_000 {
				t.Errorf("collapsed = %t, want %t", c, tc.collapsed)
			}
			if d := strings.Contains(got, "<details>"); d != tc.details {
				t.Errorf("details kept = %t, want %t", d, tc.details)
			}
			if r := strings.Contains(got, "tests' rows left out"); r != tc.rowsCut && tc.max > 3_000 {
				t.Errorf("rows cut = %t, want %t", r, tc.rowsCut)
			}
			if tc.max >= 700 && tc.max < 4<<20 && !strings.Contains(got, "Full report: the job summary") {
				t.Errorf("a cut comment must say where the full report is")
			}
			if tc.max >= 3_000 && !strings.Contains(got, "## 💥 evalgate:") {
				t.Errorf("the headline must survive any cut")
			}
		})
	}
}

// TestCommentKeepsFailuresFirst checks that rows go least important first: passing tests fold
// before anything else is cut, and a test is shown only if every more severe one is.
func TestCommentKeepsFailuresFirst(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	sev := map[string]int{}
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			sev[tr.ID] = severity(tr.Verdict, len(tr.Gates) > 0)
		}
	}
	got := NewReport(run, nil).Comment(CommentOptions{MaxBytes: 12_000})
	shown := map[string]bool{}
	worst := -1
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		id := strings.SplitN(line[3:], "`", 2)[0]
		shown[id] = true
		worst = max(worst, sev[id])
	}
	if len(shown) == 0 || len(shown) == len(sev) {
		t.Fatalf("%d of %d tests shown; the budget should cut some", len(shown), len(sev))
	}
	for id, s := range sev {
		if s == severity(result.Pass, false) && shown[id] {
			t.Errorf("passing test %s shown while failing rows were cut", id)
		}
		if s < worst && !shown[id] {
			t.Errorf("test %s (severity %d) dropped while a less severe one (%d) is shown", id, s, worst)
		}
	}
}

func TestStepSummaryBudget(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	full := NewReport(run, nil).StepSummary(SummaryOptions{})
	if len(full) > maxStepSummaryBytes {
		t.Errorf("%d bytes, budget %d", len(full), maxStepSummaryBytes)
	}
	checkMarkdown(t, full, false)
	if strings.Contains(full, "Trimmed") {
		t.Error("300 tests fit the step summary untrimmed")
	}
	if n := strings.Count(full, "<details>"); n < 250 {
		t.Errorf("%d detail sections; the summary is the full report", n)
	}
	small := NewReport(run, nil).StepSummary(SummaryOptions{MaxBytes: 100_000})
	if len(small) > 100_000 || !strings.Contains(small, "Trimmed to fit 100,000 bytes") {
		t.Errorf("a small summary budget must trim and say so (%d bytes)", len(small))
	}
	checkMarkdown(t, small, false)
}

func TestHardCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, tail string
		limit   int
		want    string
	}{
		{"a\nb\nc\n", "T\n", 6, "a\nb\nT\n"},
		{"abc", "T\n", 10, "T\n"},
		{"a\n", "TAIL\nX\n", 5, "TAIL\n"},
		{"a\n", "T\n", 0, ""},
		{"a\n", "T\n", -3, ""},
	}
	for _, tc := range tests {
		got := hardCut(tc.s, tc.tail, tc.limit)
		if got != tc.want || len(got) > max(tc.limit, 0) {
			t.Errorf("hardCut(%q, %q, %d) = %q, want %q", tc.s, tc.tail, tc.limit, got, tc.want)
		}
	}
}

func TestLargest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hi, limit, want int }{{10, 7, 7}, {10, 10, 10}, {10, 0, 0}, {10, -1, -1}, {0, 0, 0}, {-1, 5, -1}} {
		if got := largest(tc.hi, func(k int) bool { return k <= tc.limit }); got != tc.want {
			t.Errorf("largest(%d, ≤%d) = %d, want %d", tc.hi, tc.limit, got, tc.want)
		}
	}
}

// FuzzComment feeds arbitrary text into every field people and models control and checks the
// promises that must hold for any input: no panic, the size limits, and closed structure.
func FuzzComment(f *testing.F) {
	for _, s := range []string{"", "</details>", "```", "<!-- evalgate:comment -->", "| a | b |", "@octocat",
		"\x1b[31m", "````\n</details>\n", "<details>", "\xff\xfe", "[x](javascript:y)", strings.Repeat("`", 70)} {
		f.Add(s, s, s, 2000)
	}
	f.Fuzz(checkInvariants)
}

// checkInvariants renders a run built from arbitrary text and checks what must always hold.
func checkInvariants(t *testing.T, id, reasoning, answer string, limit int) {
	limit = 500 + int(uint(limit)%70_000)
	ok := true
	run := &result.Run{Suites: []*result.SuiteResult{{Name: id, Path: id, Error: reasoning, Tests: []*result.TestResult{{
		ID: id, Suite: id, Verdict: result.Fail, Error: answer, Gates: []string{reasoning},
		Output: &result.Output{Answer: answer},
		Graders: []*result.GraderResult{{Name: id, Verdict: result.Fail, Reasoning: reasoning,
			Assertions: []result.Assertion{{Text: id, Evidence: reasoning}},
			Criteria: []*result.CriterionResult{{ID: id, Outcome: reasoning, Satisfied: &ok, Reasoning: reasoning,
				Band: answer, Verdict: result.Borderline}}}},
	}}}}}
	c := NewReport(run, nil).Comment(CommentOptions{Marker: id, ReportHint: reasoning, MaxBytes: limit, RerunCommand: answer})
	if len(c) > limit {
		t.Fatalf("comment %d bytes > %d", len(c), limit)
	}
	checkFuzzStructure(t, c)
	co := NewReport(run, nil).CheckRun(CheckOptions{MaxBytes: limit})
	if len(co.Summary) > limit || len(co.Text) > limit {
		t.Fatalf("check output over %d bytes", limit)
	}
	checkFuzzStructure(t, co.Summary)
	checkFuzzStructure(t, co.Text)
	var sb strings.Builder
	if err := NewReport(run, nil).Table(&sb, TableOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(sb.String(), "\x1b") != strings.Count(sb.String(), ansiReset)*2 {
		t.Fatalf("stray escape in the table: %q", sb.String())
	}
}

// checkFuzzStructure checks the structural promises (balanced fences and <details>, one
// marker at most) without the content checks, which arbitrary input makes meaningless.
func checkFuzzStructure(t *testing.T, s string) {
	t.Helper()
	fence, depth := 0, 0
	for _, line := range strings.Split(s, "\n") {
		if fence > 0 {
			if strings.TrimRight(line, "`") == "" && len(line) >= fence {
				fence = 0
			}
			continue
		}
		if n := fenceOpen(line); n > 0 {
			fence = n
			continue
		}
		text := stripCodeSpans(line) // code spans show their content literally
		depth += strings.Count(text, "<details>") - strings.Count(text, "</details>")
		if depth < 0 {
			t.Fatalf("unbalanced </details> in %q", s)
		}
	}
	if fence != 0 || depth != 0 {
		t.Fatalf("open fence (%d) or details (%d) in %q", fence, depth, s)
	}
	if strings.Count(s, "<!--") > 1 {
		t.Fatalf("more than one <!-- in %q", s)
	}
}

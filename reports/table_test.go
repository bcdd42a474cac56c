package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/result"
)

// refusedRun is the mixed fixture with an agent error whose cause is at the end of a long
// message, as Go errors are.
func refusedRun(t *testing.T) *result.Run {
	t.Helper()
	run := loadRun(t, "mixed")
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			if tr.ID == "migrate-config" {
				tr.Error = `openai gpt-4o-mini: retries exhausted after 4 attempt(s): Post "http://127.0.0.1:8000/v1/chat/completions": dial tcp 127.0.0.1:8000: connect: connection refused`
			}
		}
	}
	return run
}

func TestTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := NewReport(refusedRun(t), nil).Table(&buf, TableOptions{Width: width}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); n > width {
					t.Errorf("line %d is %d wide, more than %d: %q", i+1, n, width, line)
				}
			}
			// The cause is at the end of the error: it must show, not be cut off.
			if !strings.Contains(strings.Join(strings.Fields(out), " "), "connect: connection refused") {
				t.Errorf("the cause of the agent error does not show:\n%s", out)
			}
			golden.Check(t, goldenPath(fmt.Sprintf("mixed/table-%d.txt", width)), out, *update)
		})
	}
}

func TestTableReasonKeepsTheCause(t *testing.T) {
	t.Parallel()
	long := "agent: " + strings.Repeat("context ", 60) + "connect: connection refused"
	tests := []struct {
		name  string
		width int
	}{{"no limit", 0}, {"narrow", 60}, {"wide", 200}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := refusedRun(t)
			run.Suites[0].Tests[1].Error = long
			var buf bytes.Buffer
			if err := NewReport(run, nil).Table(&buf, TableOptions{Width: tt.width}); err != nil {
				t.Fatal(err)
			}
			flat := strings.Join(strings.Fields(buf.String()), " ")
			if !strings.Contains(flat, "agent: context") || !strings.Contains(flat, "connection refused") || !strings.Contains(flat, "…") {
				t.Errorf("a long reason must keep its start and its end, eliding the middle:\n%s", buf.String())
			}
		})
	}
}

func TestTableNothingGraded(t *testing.T) {
	t.Parallel()
	run := &result.Run{Suites: []*result.SuiteResult{{Name: "s", Tests: []*result.TestResult{
		{ID: "a", Verdict: result.Error, Error: "connection refused"},
		{ID: "b", Verdict: result.Skip, Error: "cancelled"},
	}}}}
	run.Summary.Total = 2
	var buf bytes.Buffer
	if err := NewReport(run, nil).Table(&buf, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "mean score") || !strings.Contains(out, "no test was graded") {
		t.Errorf("a run that graded nothing must say so, not show a mean of 0:\n%s", out)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		w    int
		want []string
	}{
		{"a bb ccc dddd", 6, []string{"a bb", "ccc", "dddd"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"x abcdefghij y", 4, []string{"x", "abcd", "efgh", "ij y"}},
		{"", 5, nil},
	}
	for _, tt := range tests {
		if got := wrap(tt.in, tt.w); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
	}
}

package reports

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenPath is where the golden file name lives: under testdata/golden.
func goldenPath(name string) string { return filepath.Join("testdata", "golden", name) }

// loadRun reads testdata/results/name.json.
func loadRun(t *testing.T, name string) *result.Run {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "results", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := ReadResults(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return run
}

// fenceOpen returns the fence length of a line that opens a backtick fence, or 0.
func fenceOpen(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "`"))
	if n >= 3 && !strings.Contains(line[n:], "`") {
		return n
	}
	return 0
}

// checkMarkdown asserts the structure a renderer promises: fences closed, <details> balanced
// and closed in order outside code, no raw HTML from content outside code (only our own tags),
// table rows with as many cells as their header, and at most one "<!--" (the marker, first).
func checkMarkdown(t *testing.T, s string, wantMarker bool) {
	t.Helper()
	lines := strings.Split(s, "\n")
	fence, depth := 0, 0
	tableCells := -1
	for i, line := range lines {
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
			t.Fatalf("line %d closes a <details> that is not open: %q", i+1, line)
		}
		for _, bad := range []string{"<img", "<script", "<https", "<summary>fake", "<!-- evalgate:comment key=other", "<!-- evalgate:comment key=forged"} {
			if strings.Contains(text, bad) {
				t.Errorf("line %d carries raw %q: %q", i+1, bad, line)
			}
		}
		if j := strings.Index(text, "](javascript"); j >= 0 && (j == 0 || text[j-1] != '\\') {
			t.Errorf("line %d carries a javascript: link: %q", i+1, line)
		}
		if strings.Contains(text, "@octocat") {
			t.Errorf("line %d mentions @octocat: %q", i+1, line)
		}
		if strings.HasPrefix(line, "|") {
			cells := countCells(line)
			if tableCells < 0 {
				tableCells = cells
			} else if cells != tableCells {
				t.Errorf("line %d has %d cells, its table %d: %q", i+1, cells, tableCells, line)
			}
		} else {
			tableCells = -1
		}
	}
	if fence != 0 {
		t.Errorf("a code fence is left open")
	}
	if depth != 0 {
		t.Errorf("%d <details> left open", depth)
	}
	n := strings.Count(s, "<!--")
	switch {
	case wantMarker && (n != 1 || !strings.HasPrefix(s, "<!-- ")):
		t.Errorf("want exactly one \"<!--\", the marker at the top; got %d (starts %q)", n, truncate(s, 40))
	case !wantMarker && n != 0:
		t.Errorf("want no \"<!--\"; got %d", n)
	}
}

// stripCodeSpans removes inline code spans (CommonMark: a run of n backticks up to the next
// run of exactly n), whose content is shown literally and so cannot carry HTML or links.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '\\' && i+1 < len(line) {
			b.WriteString(line[i : i+2])
			i += 2
			continue
		}
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteString("<code/>")
		i = end
	}
	return b.String()
}

// countCells counts a table row's cells as GFM does: "|" splits unless backslash-escaped.
func countCells(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// markdownRows returns the cells of the Markdown table rows of md whose first cell is first,
// split as countCells counts them and trimmed.
func markdownRows(md, first string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| "+first+" |") {
			continue
		}
		var cells []string
		start := 1
		for i := 1; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '|':
				cells = append(cells, strings.TrimSpace(line[start:i]))
				start = i + 1
			}
		}
		rows = append(rows, cells)
	}
	return rows
}

// bigRun generates a deterministic run of n tests over six suites, with long reasoning and
// answers, so that the comment must be cut to fit.
func bigRun(n int) *result.Run {
	start := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	run := &result.Run{SchemaVersion: result.SchemaVersion, StartedAt: start, FinishedAt: start.Add(41 * time.Minute),
		Thresholds: result.DefaultThresholds, Context: &result.Context{SHA: "0123456789abcdef0123456789abcdef01234567"}}
	suites := []string{"coding", "support", "docs", "sql", "triage", "summaries"}
	for i, name := range suites {
		run.Suites = append(run.Suites, &result.SuiteResult{Name: name, Path: "evals/" + name + ".eval.yaml", Format: "agentv", Target: "agent-" + fmt.Sprint(i)})
	}
	crits := []string{"correctness", "completeness", "safety", "style"}
	for i := range n {
		s := run.Suites[i*len(suites)/n]
		t := &result.TestResult{Suite: s.Name, ID: fmt.Sprintf("%s-case-%03d", s.Name, i), Threshold: 0.8,
			File: s.Path, Line: 10 + i, StartedAt: start.Add(time.Duration(i) * time.Second), DurationMS: int64(1000 + i*37),
			Usage:  result.Usage{InputTokens: int64(3000 + i), OutputTokens: int64(400 + i%50), CostUSD: 0.002},
			Output: &result.Output{Answer: strings.Repeat(fmt.Sprintf("Answer line %d of test %d with some `code` and text.\n", i%7, i), 30)}}
		g := &result.GraderResult{Name: "rubrics", Type: "rubrics", Weight: 1, Mode: "checklist", File: s.Path, Line: 12 + i}
		var sum float64
		for j, id := range crits {
			ok := i%3 != 0 || j != i%4
			v, sc := result.Pass, 1.0
			if !ok {
				v, sc = result.Fail, 0
			}
			sum += sc
			c := &result.CriterionResult{ID: id, Outcome: "The answer is " + id, Weight: 1, Required: j == 0, Satisfied: &ok, Score: sc, Verdict: v,
				Reasoning: strings.Repeat(fmt.Sprintf("Criterion %s on test %d: the judge explains at length. ", id, i), 6), File: s.Path, Line: 13 + i + j}
			c.Gated = j == 0 && !ok
			g.Criteria = append(g.Criteria, c)
		}
		g.Score = sum / float64(len(crits))
		t.Score = g.Score
		switch {
		case i%50 == 4:
			t.Verdict, t.Error, g = result.Skip, "not run: budget spent", nil
		case i%25 == 3:
			t.Verdict, t.Error, t.FailureStage, g = result.Error, fmt.Sprintf("target timed out after %ds", 60+i), "agent", nil
		case g.Criteria[0].Gated:
			t.Verdict, g.Verdict, g.Gated = result.Fail, result.Fail, true
			t.Gates = []string{"required criterion correctness (rubrics) not satisfied"}
		case t.Score >= 0.8:
			t.Verdict, g.Verdict = result.Pass, result.Pass
		case t.Score >= 0.6:
			t.Verdict, g.Verdict = result.Borderline, result.Borderline
		default:
			t.Verdict, g.Verdict = result.Fail, result.Fail
		}
		if g != nil {
			t.Graders = []*result.GraderResult{g}
		}
		s.Tests = append(s.Tests, t)
	}
	return run
}

package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

func TestCommentOptions(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	tests := []struct {
		name    string
		opts    CommentOptions
		want    []string
		notWant []string
	}{
		{"defaults", CommentOptions{},
			[]string{"## 💥 evalgate:", "comment `/evalgate rerun`", "Full report: the workflow run's job summary", "Gate: **failure** (fail_on: fail)"},
			[]string{"<!--", "[Check run]"}},
		{"marker first", CommentOptions{Marker: "<!-- evalgate:comment key=k -->"},
			[]string{"<!-- evalgate:comment key=k -->\n## "}, nil},
		{"bare marker is wrapped", CommentOptions{Marker: "evalgate:comment key=k"},
			[]string{"<!-- evalgate:comment key=k -->\n## "}, nil},
		{"rerun", CommentOptions{RerunCommand: "/evals rerun"},
			[]string{"## 💥 evalgate:", "comment `/evals rerun`"}, nil},
		{"unsafe links are left out", CommentOptions{CheckURL: "javascript:alert(1)", RunURL: "https://x/y)z"},
			nil, []string{"[Check run]", "[Workflow run]", "javascript"}},
		{"policy shown", CommentOptions{Gate: gate.Decision{FailOn: gate.FailOnNever}},
			[]string{"Gate: **neutral** (fail_on: never)"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := NewReport(run, nil).Comment(tc.opts)
			checkMarkdown(t, got, tc.opts.Marker != "")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q", w)
				}
			}
		})
	}
}

// TestCommentOrder checks the reading order: in each table, failed and gated first.
func TestCommentOrder(t *testing.T) {
	t.Parallel()
	got := NewReport(loadRun(t, "mixed"), nil).Comment(CommentOptions{})
	order := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| \\*overall\\*").FindAllStringSubmatch(got, -1)
	var ids []string
	for _, m := range order {
		ids = append(ids, m[1])
	}
	want := []string{"fix-null-check", "migrate-config", "add-retry", "windows-paths", "rename-helper",
		"escalation", "judge-flake", "refund-policy"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("test order (-want +got):\n%s", diff)
	}
	i, j := strings.Index(got, "rubrics › `tests-pass` | 2"), strings.Index(got, "rubrics › `minimal-diff` | 1")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the gated criterion must come before the passing ones (%d, %d)", i, j)
	}
}

func TestEmptyAndNilRuns(t *testing.T) {
	t.Parallel()
	for name, run := range map[string]*result.Run{"nil": nil, "empty": {}, "nil entries": {Suites: []*result.SuiteResult{nil, {Name: "s", Tests: []*result.TestResult{nil}}}}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker})
			checkMarkdown(t, c, true)
			if !strings.Contains(c, "no tests were graded") {
				t.Errorf("an empty run must say so:\n%s", c)
			}
			checkMarkdown(t, NewReport(run, nil).StepSummary(SummaryOptions{}), false)
			co := NewReport(run, nil).CheckRun(CheckOptions{})
			if co.Conclusion != gate.Neutral || co.Annotations == nil {
				t.Errorf("conclusion %q, annotations %v", co.Conclusion, co.Annotations)
			}
			var buf bytes.Buffer
			if err := NewReport(run, nil).Table(&buf, TableOptions{}); err != nil || !strings.Contains(buf.String(), "gate: NEUTRAL") {
				t.Errorf("table: %v\n%s", err, buf.String())
			}
			if err := WriteIndex(&buf, run); err != nil {
				t.Error(err)
			}
			if err := writeJUnit(&buf, run, JUnitOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTableColor(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	var plain, color bytes.Buffer
	if err := NewReport(run, nil).Table(&plain, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := NewReport(run, nil).Table(&color, TableOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Error("colour must be off by default")
	}
	if !strings.Contains(color.String(), "\x1b[31mfail") {
		t.Error("Color must colour verdicts")
	}
	// Stripping the codes must give back the plain table: the columns stay aligned.
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(color.String(), "")
	if diff := cmp.Diff(plain.String(), stripped); diff != "" {
		t.Errorf("coloured table is not the plain one plus codes (-plain +stripped):\n%s", diff)
	}
}

func TestTableReasons(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := NewReport(loadRun(t, "hostile"), nil).Table(&buf, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(buf.String(), "\n") {
		if strings.ContainsAny(line, "\x1b\a\t\r\u202e") {
			t.Errorf("line %d carries control characters: %q", i+1, line)
		}
	}
	if !strings.Contains(buf.String(), "required criterion not met: </details> <!-- evalgate:comment key=forged") {
		t.Errorf("a gated row's reason is its gate and the judge's reasoning, on one line:\n%s", buf.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestTableWriteError(t *testing.T) {
	t.Parallel()
	if err := NewReport(loadRun(t, "mixed"), nil).Table(failWriter{}, TableOptions{}); err == nil {
		t.Error("a write error must be returned")
	}
}

func TestWriteAll(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "nested", "report")
	run := loadRun(t, "mixed")
	if err := NewReport(run, nil).WriteAll(dir, FilesOptions{Comment: CommentOptions{Marker: testMarker}}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{FileCheckRun, FileComment, FileIndex, FileJUnit, FileHTML, FileResults, FileSummary}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got; no temp files may remain):\n%s", diff)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := string(read(FileComment)); got != NewReport(run, nil).Comment(CommentOptions{Marker: testMarker}) {
		t.Error("comment.md differs from Comment")
	}
	var check map[string]any
	if err := json.Unmarshal(read(FileCheckRun), &check); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"title", "summary", "text", "conclusion", "annotations"} {
		if _, ok := check[k]; !ok {
			t.Errorf("check-run.json lacks %q", k)
		}
	}
	ann := check["annotations"].([]any)[0].(map[string]any)
	for _, k := range []string{"path", "start_line", "end_line", "annotation_level", "title", "message"} {
		if _, ok := ann[k]; !ok {
			t.Errorf("annotation lacks %q", k)
		}
	}
	back, err := ReadResults(bytes.NewReader(read(FileResults)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run, back); diff != "" {
		t.Errorf("results.json round trip (-want +got):\n%s", diff)
	}
	info, err := os.Stat(filepath.Join(dir, FileResults))
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("results.json mode %v, %v", info.Mode(), err)
	}
}

func TestWriteAllErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := NewReport(loadRun(t, "mixed"), nil).WriteAll(file, FilesOptions{}); err == nil {
		t.Error("a file in the way of the report dir must be an error")
	}
	nan := bigRun(3)
	nan.Suites[0].Tests[0].Graders[0].Details = map[string]any{"bad": make(chan int)}
	dir := t.TempDir()
	err := NewReport(nan, nil).WriteAll(dir, FilesOptions{})
	if err == nil || !strings.Contains(err.Error(), FileResults) {
		t.Errorf("an unencodable model must fail results.json: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, FileComment)); statErr != nil {
		t.Errorf("the other reports must still be written: %v", statErr)
	}
}

// TestRegressedPassingTestIsNotFolded: a passing test that dropped (here by a single sample,
// so not significantly) stays in the table when passing tests fold to fit the budget.
func TestRegressedPassingTestIsNotFolded(t *testing.T) {
	t.Parallel()
	base, head := bigRun(300), bigRun(300)
	var id string
	for _, tr := range head.Suites[2].Tests {
		if tr.Verdict == result.Pass {
			tr.Score, id = 0.85, tr.ID
			break
		}
	}
	got := NewReport(head, compare.Compare(base, head, compare.Options{})).Comment(CommentOptions{MaxBytes: 37_500})
	if !strings.Contains(got, "passing tests collapsed") {
		t.Fatal("the budget should fold passing tests")
	}
	rows := markdownRows(got, "`"+id+"`")
	if len(rows) != 1 || len(rows[0]) != 8 {
		t.Fatalf("regressed passing test %s must keep its one row, got %q", id, rows)
	}
	// The delta's interval is the comparison's to check; here only the delta must show.
	row := rows[0]
	if strings.HasPrefix(row[5], "↕️ -0.15 [") {
		row[5] = "↕️ -0.15 […]"
	}
	if diff := cmp.Diff([]string{"`" + id + "`", "*overall*", "", "", "**0.85**", "↕️ -0.15 […]", "✅ pass", ""}, row); diff != "" {
		t.Errorf("the row of regressed passing test %s (-want +got):\n%s", id, diff)
	}
}

// TestNothingGradedHasNoScore: a run whose every test errored has no mean score; no renderer
// may print "0.00" as if it had been graded.
func TestNothingGradedHasNoScore(t *testing.T) {
	t.Parallel()
	run := &result.Run{Summary: result.Summary{Total: 1, Errors: 1, Verdict: result.Error}, Suites: []*result.SuiteResult{{Name: "s", Path: "evals/s.eval.yaml",
		Summary: result.Summary{Total: 1, Errors: 1, Verdict: result.Error},
		Tests:   []*result.TestResult{{ID: "t", Verdict: result.Error, Error: "target down"}}}}}
	var table bytes.Buffer
	if err := NewReport(run, nil).Table(&table, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	co := NewReport(run, nil).CheckRun(CheckOptions{})
	for name, text := range map[string]string{"comment": NewReport(run, nil).Comment(CommentOptions{Marker: testMarker}), "summary": NewReport(run, nil).StepSummary(SummaryOptions{}),
		"check title": co.Title, "check summary": co.Summary, "table": table.String()} {
		if strings.Contains(text, "0.00") {
			t.Errorf("%s shows a score for a run that graded nothing:\n%s", name, text)
		}
	}
	if !strings.Contains(table.String(), "no test was graded") {
		t.Errorf("the table does not say nothing was graded:\n%s", table.String())
	}
}

// TestCommentNamesUnselectedSuites: a suite the selection left out is named, so that it is
// never mistaken for one that passed; the list is bounded.
func TestCommentNamesUnselectedSuites(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	if got := NewReport(run, nil).Comment(CommentOptions{}); strings.Contains(got, "Not run:") {
		t.Errorf("a run that left nothing out says Not run:\n%s", got)
	}
	two := *run
	two.Unselected = []result.Unselected{{Path: "evals/a.eval.yaml", Why: "not touched"}, {Path: "evals/b`x.eval.yaml"}}
	got := NewReport(&two, nil).Comment(CommentOptions{})
	want := "**Not run:** 2 suites not selected for this run (a suite runs when the change touches it or a file it references): `evals/a.eval.yaml`, ``evals/b`x.eval.yaml``. Comment `/evalgate rerun <suite-glob>` to run one."
	if !strings.Contains(got, want) {
		t.Errorf("missing %q in:\n%s", want, got)
	}
	many := *run
	for i := range maxUnselectedListed + 3 {
		many.Unselected = append(many.Unselected, result.Unselected{Path: fmt.Sprintf("evals/s%02d.eval.yaml", i)})
	}
	got = NewReport(&many, nil).Comment(CommentOptions{})
	if !strings.Contains(got, "`evals/s09.eval.yaml` and 3 more.") || strings.Contains(got, "s10.eval.yaml") {
		t.Errorf("13 unselected suites: want 10 named and 3 more:\n%s", got)
	}
}

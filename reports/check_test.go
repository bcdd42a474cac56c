package reports

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

func TestAnnotations(t *testing.T) {
	t.Parallel()
	co := NewReport(loadRun(t, "mixed"), nil).CheckRun(CheckOptions{})
	type ann struct {
		Path  string
		Line  int
		Level string
	}
	var got []ann
	for _, a := range co.Annotations {
		got = append(got, ann{a.Path, a.StartLine, a.Level})
		if a.EndLine != a.StartLine || len(a.Title) > maxAnnotationTitleBytes || a.Message == "" {
			t.Errorf("malformed annotation %+v", a)
		}
	}
	want := []ann{
		{"evals/refactor.eval.yaml", 26, LevelFailure},        // fix-null-check: tests-pass (gated)
		{"evals/refactor.eval.yaml", 39, levelWarning},        // add-retry: jitter failed, test borderline
		{"evals/refactor.eval.yaml", 44, LevelFailure},        // migrate-config: agent error
		{"evals/support/replies.eval.yaml", 17, levelWarning}, // refund-policy: tone borderline
		{"evals/support/replies.eval.yaml", 28, LevelFailure}, // escalation: accuracy gated
		{"evals/support/replies.eval.yaml", 41, LevelFailure}, // judge-flake: grader error
		{"evals/support/replies.eval.yaml", 42, LevelFailure}, // judge-flake: criterion error
		{"evals/broken.eval.yaml", 1, LevelFailure},           // suite could not run
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if co.Conclusion != gate.Failure {
		t.Errorf("conclusion %s", co.Conclusion)
	}
	if !strings.Contains(co.Annotations[0].Message, "test_lookup_missing_user") {
		t.Errorf("the judge's reasoning belongs in the message: %q", co.Annotations[0].Message)
	}
}

func TestAnnotationsAllOfThem(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	co := NewReport(run, nil).CheckRun(CheckOptions{})
	want := 0
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			switch tr.Verdict {
			case result.Fail, result.Borderline: // one failed criterion each
				want++
			case result.Error:
				want++
			}
		}
	}
	if len(co.Annotations) != want || want <= 50 {
		t.Errorf("%d annotations, want %d (more than one batch of 50)", len(co.Annotations), want)
	}
	if len(co.Summary) > MaxCheckTextBytes || len(co.Text) > MaxCheckTextBytes {
		t.Errorf("summary %d, text %d bytes", len(co.Summary), len(co.Text))
	}
}

func TestAnnotationBounds(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200_000)
	run := &result.Run{Suites: []*result.SuiteResult{{Name: long, Path: "/repo/evals/x.yaml", Tests: []*result.TestResult{{
		ID: long, Verdict: result.Fail, File: "/repo/evals/x.yaml", Line: 0,
		Graders: []*result.GraderResult{{Name: "g", Verdict: result.Fail, Reasoning: long + "\x1b[31m",
			Assertions: []result.Assertion{{Text: long, Evidence: long}}}},
	}}}}}
	co := NewReport(run, nil).CheckRun(CheckOptions{RepoRoot: "/repo"})
	if len(co.Annotations) != 1 {
		t.Fatalf("%d annotations, want 1", len(co.Annotations))
	}
	a := co.Annotations[0]
	if a.Path != "evals/x.yaml" || a.StartLine != 1 {
		t.Errorf("path %q line %d, want evals/x.yaml:1", a.Path, a.StartLine)
	}
	if len(a.Title) > maxAnnotationTitleBytes || len(a.Message) > maxAnnotationTextBytes || len(a.RawDetails) > maxAnnotationTextBytes {
		t.Errorf("title %d, message %d, raw %d bytes", len(a.Title), len(a.Message), len(a.RawDetails))
	}
	if strings.Contains(a.Message, "\x1b") {
		t.Error("escape sequences must not reach annotations")
	}
}

func TestRepoPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ root, in, want string }{
		{"", "evals/a.yaml", "evals/a.yaml"},
		{"", "./evals/a.yaml", "evals/a.yaml"},
		{"/w/repo", "/w/repo/evals/a.yaml", "evals/a.yaml"},
		{"/w/repo", "/elsewhere/a.yaml", "/elsewhere/a.yaml"},
		{"", "", ""},
	}
	for _, tc := range tests {
		if got := repoPath(tc.root, tc.in); got != tc.want {
			t.Errorf("repoPath(%q, %q) = %q, want %q", tc.root, tc.in, got, tc.want)
		}
	}
}

// TestTopAnnotations checks the order the gate posts annotations in: failed required criteria,
// then other failures, then errors, then warnings, each in run order.
func TestTopAnnotations(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	for i, tr := range run.Suites[0].Tests {
		if tr.Verdict == result.Borderline && i%2 == 0 {
			tr.Verdict = result.Fail // its failed optional criterion becomes a failure
		}
	}
	anns := NewReport(run, nil).CheckRun(CheckOptions{}).Annotations
	rank := func(a Annotation) int {
		switch {
		case strings.Contains(a.Title, "· gate"):
			return 0
		case a.Level == LevelFailure && strings.HasSuffix(a.Title, ": fail"):
			return 1
		case a.Level == LevelFailure:
			return 2
		}
		return 3
	}
	seen := map[int]bool{}
	for _, a := range anns {
		seen[rank(a)] = true
	}
	if len(seen) != 4 || len(anns) <= MaxPostedAnnotations {
		t.Fatalf("the fixture should have every kind of annotation and more than %d: kinds %v, %d annotations", MaxPostedAnnotations, seen, len(anns))
	}
	top := TopAnnotations(anns, MaxPostedAnnotations)
	if len(top) != MaxPostedAnnotations {
		t.Fatalf("%d annotations, want %d", len(top), MaxPostedAnnotations)
	}
	var want []Annotation
	for r := range 4 {
		for _, a := range anns {
			if rank(a) == r {
				want = append(want, a)
			}
		}
	}
	for i := range top {
		if top[i].Title != want[i].Title || top[i].StartLine != want[i].StartLine {
			t.Fatalf("annotation %d is %q (line %d), want %q (line %d)", i, top[i].Title, top[i].StartLine, want[i].Title, want[i].StartLine)
		}
	}
	if all := TopAnnotations(anns[:10], MaxPostedAnnotations); len(all) != 10 || all[0].Title != anns[0].Title {
		t.Errorf("a short list must come back whole and in order")
	}
}

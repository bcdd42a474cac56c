package grader

import (
	"flag"
	"math"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// spec builds a grader spec as the loader would.
func spec(typ string, p map[string]any) *suite.Grader {
	return &suite.Grader{Name: typ, Type: typ, Weight: 1, Params: p, Pos: suite.Pos{File: "evals/x.eval.yaml", Line: 7}}
}

// gradeIn builds spec's grader and grades in.
func gradeIn(t *testing.T, s *suite.Grader, in *Input) *result.GraderResult {
	t.Helper()
	g, err := New(s, Deps{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if in.Test == nil {
		in.Test = &suite.Test{ID: "t"}
	}
	r := g.Grade(t.Context(), in)
	if r == nil {
		t.Fatal("Grade returned nil")
	}
	if r.Name != s.Name || r.Type != s.Type || r.Line != s.Pos.Line {
		t.Errorf("result identity = %s/%s line %d, want the spec's", r.Name, r.Type, r.Line)
	}
	return r
}

// wantResult compares a result's score and verdict.
func wantResult(t *testing.T, r *result.GraderResult, score float64, v result.Verdict) {
	t.Helper()
	if math.Abs(r.Score-score) > 1e-9 || r.Verdict != v {
		t.Errorf("score %v verdict %s, want %v %s (error %q, assertions %+v)", r.Score, r.Verdict, score, v, r.Error, r.Assertions)
	}
}

// wantConfigError checks that New rejects s, naming its position and the problem.
func wantConfigError(t *testing.T, s *suite.Grader, want string) {
	t.Helper()
	_, err := New(s, Deps{})
	if err == nil {
		t.Fatalf("New accepted %s %v", s.Type, s.Params)
	}
	if !strings.Contains(err.Error(), s.Pos.String()) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to name %s and say %q", err, s.Pos, want)
	}
}

func call(tool string, input map[string]any) result.ToolCall {
	return result.ToolCall{Tool: tool, Input: input}
}

func outputWith(calls ...result.ToolCall) *Input {
	return &Input{Output: &result.Output{ToolCalls: calls}}
}

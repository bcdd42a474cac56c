package grader

import (
	"errors"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	hot := 5.0
	member := func(typ string, p map[string]any) *suite.Grader {
		s := spec(typ, p)
		s.Pos.Line = 12
		return s
	}
	tests := []struct {
		name string
		spec *suite.Grader
		want string // "" = valid
		line int    // the line the error must name
	}{
		{name: "contains", spec: &suite.Grader{Name: "c", Type: "contains", Value: "x", Weight: 1}},
		{name: "execution-metrics, camelCase", spec: spec("execution-metrics", map[string]any{"maxToolCalls": 3})},
		{name: "rubrics need no judge to validate", spec: &suite.Grader{Name: "r", Type: "rubrics", Weight: 1, Criteria: []*suite.Criterion{{ID: "a", Outcome: "x", Weight: 1}}}},
		{name: "a code grader is not started", spec: &suite.Grader{Name: "s", Type: "code-grader", Command: []string{"./does-not-run.sh"}}},
		{name: "unknown type", spec: spec("sentiment", nil), want: `grader type "sentiment" is not available`, line: 7},
		{name: "code-grader target proxy", spec: &suite.Grader{Name: "s", Type: "code-grader", Command: []string{"x"}, Params: map[string]any{"target": true}, Pos: suite.Pos{File: "e.yaml", Line: 3}},
			want: "target proxy is not supported", line: 3},
		{name: "metrics without limits", spec: spec("execution-metrics", map[string]any{}), want: "needs at least one", line: 7},
		{name: "composite with a bad member names the member", spec: &suite.Grader{Name: "all", Type: "composite", Pos: suite.Pos{File: "e.yaml", Line: 9},
			Members: []*suite.Grader{{Name: "c", Type: "contains", Value: "x", Weight: 1}, member("latency", nil)}}, want: "latency grader needs threshold", line: 12},
		{name: "composite with an unknown member type", spec: &suite.Grader{Name: "all", Type: "composite", Pos: suite.Pos{File: "e.yaml", Line: 9},
			Members: []*suite.Grader{member("vibes", nil)}}, want: `grader type "vibes"`, line: 12},
		{name: "judge temperature no vendor accepts", spec: &suite.Grader{Name: "j", Type: "llm-grader", Weight: 1, Temperature: &hot, Pos: suite.Pos{File: "e.yaml", Line: 4}},
			want: "temperature must be between 0 and 2", line: 4},
		{name: "likert without a scheme", spec: &suite.Grader{Name: "l", Type: "likert", Weight: 1, Pos: suite.Pos{File: "e.yaml", Line: 5}}, want: "no rubric_eval scheme", line: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validate(tt.spec)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || ce.Pos.Line != tt.line {
				t.Fatalf("Validate = %v, want a ConfigError at line %d saying %q", err, tt.line, tt.want)
			}
		})
	}
}

// TestValidateAgreesWithRun: what Validate refuses, a run reports as an error result on the
// test (never a pass); what it accepts builds and grades without a configuration error.
func TestValidateAgreesWithRun(t *testing.T) {
	t.Parallel()
	deps := Deps{Judge: func(string) (*judge.Judge, error) { return nil, errors.New("no judge in this test") }}
	refused := []*suite.Grader{
		spec("sentiment", nil),
		{Name: "s", Type: "code-grader", Command: []string{"x"}, Params: map[string]any{"target": map[string]any{"max_calls": 3}}},
		{Name: "all", Type: "composite", Members: []*suite.Grader{spec("vibes", nil)}},
	}
	for _, s := range refused {
		if validate(s) == nil {
			t.Errorf("%s: Validate accepted it", s.Type)
		}
		g, err := New(s, deps)
		if err != nil {
			continue // the engine records it as an error result
		}
		if r := g.Grade(t.Context(), &Input{Test: &suite.Test{ID: "t"}}); r.Verdict != result.Error {
			t.Errorf("%s: run verdict %s, want error", s.Type, r.Verdict)
		}
	}
	accepted := spec("execution-metrics", map[string]any{"maxToolCalls": 3, "max_tokens": 100})
	if err := validate(accepted); err != nil {
		t.Fatal(err)
	}
	r := gradeIn(t, accepted, &Input{Output: &result.Output{Usage: result.Usage{InputTokens: 10}}})
	if r.Verdict == result.Error {
		t.Fatalf("accepted spec errored at run time: %s", r.Error)
	}
}

package grader

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

func grade(t *testing.T, spec *suite.Grader, answer string) *result.GraderResult {
	t.Helper()
	g, err := New(spec, Deps{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g.Grade(t.Context(), &Input{Test: &suite.Test{ID: "t"}, Output: &result.Output{Answer: answer}})
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ    string
		value  any
		flags  string
		negate bool
		answer string
		want   float64
	}{
		{"contains", "subtract", "", false, "added subtract()", 1},
		{"contains", "Subtract", "", false, "added subtract()", 0},
		{"icontains", "Subtract", "", false, "added subtract()", 1},
		{"contains-any", []any{"x", "sub"}, "", false, "added subtract()", 1},
		{"contains-any", []any{"x", "y"}, "", false, "added subtract()", 0},
		{"contains-all", []any{"added", "sub"}, "", false, "added subtract()", 1},
		{"contains-all", []any{"added", "mul"}, "", false, "added subtract()", 0},
		{"icontains-all", []any{"ADDED", "SUB"}, "", false, "added subtract()", 1},
		{"starts-with", " Done", "", false, "Done: it works\n", 1},
		{"ends-with", "works", "", false, "Done: it works\n", 1},
		{"equals", "4", "", false, " 4\n", 1},
		{"equals", "4", "", false, "four", 0},
		{"regex", `def \w+\(`, "", false, "def subtract(a, b):", 1},
		{"regex", `DEF`, "i", false, "def x", 1},
		{"regex", `^b`, "m", false, "a\nb", 1},
		{"is-json", nil, "", false, `{"ok": true}`, 1},
		{"is-json", nil, "", false, `{"ok": tru`, 0},
		{"contains", "secret", "", true, "no leaks here", 1},
		{"contains", "secret", "", true, "the secret is x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.answer, func(t *testing.T) {
			t.Parallel()
			spec := &suite.Grader{Name: tt.typ, Type: tt.typ, Weight: 1, Value: tt.value, Flags: tt.flags, Negate: tt.negate}
			r := grade(t, spec, tt.answer)
			wantVerdict := result.Fail
			if tt.want == 1 {
				wantVerdict = result.Pass
			}
			if r.Score != tt.want || r.Verdict != wantVerdict || len(r.Assertions) != 1 || r.Assertions[0].Passed != (tt.want == 1) {
				t.Fatalf("got score %v verdict %s assertions %+v", r.Score, r.Verdict, r.Assertions)
			}
			if tt.negate && !strings.HasPrefix(r.Assertions[0].Evidence, "[Negated]") {
				t.Fatalf("negated evidence = %q", r.Assertions[0].Evidence)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, spec := range []*suite.Grader{
		{Type: "regex", Value: "(unclosed"},
		{Type: "regex", Value: "x", Flags: "q"},
		{Type: "contains"},
		{Type: "contains-any", Value: []any{}},
		{Type: "rubrics"}, // no judge configured
	} {
		if _, err := New(spec, Deps{}); err == nil {
			t.Errorf("New(%s %v) succeeded, want an error", spec.Type, spec.Value)
		}
	}
}

func TestUnavailableTypeIsAnError(t *testing.T) {
	t.Parallel()
	r := grade(t, &suite.Grader{Name: "x", Type: "no-such-grader", Weight: 1}, "anything")
	if r.Verdict != result.Error || r.Error == "" || r.Score != 0 {
		t.Fatalf("got %+v", r)
	}
}

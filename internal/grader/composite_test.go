package grader

import (
	"context"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// skipping is a test grader whose result is always skip, as a judge that could not answer.
type skipping struct{ spec *suite.Grader }

func (s skipping) Grade(context.Context, *Input) *result.GraderResult {
	r := base(s.spec)
	r.Verdict = result.Skip
	return r
}

func init() {
	constructors["test-skip"] = func(spec *suite.Grader, _ Deps) (Grader, error) { return skipping{spec: spec}, nil }
}

func TestComposite(t *testing.T) {
	t.Parallel()
	member := func(name, typ string, value any, weight float64) *suite.Grader {
		return &suite.Grader{Name: name, Type: typ, Value: value, Weight: weight, Pos: suite.Pos{File: "evals/x.eval.yaml", Line: 9}}
	}
	hit := func(name string, w float64) *suite.Grader { return member(name, "contains", "hello", w) }
	miss := func(name string, w float64) *suite.Grader { return member(name, "contains", "absent", w) }
	tests := []struct {
		name       string
		members    []*suite.Grader
		aggregator any
		negate     bool
		score      float64
		want       result.Verdict
		wantErr    string
	}{
		{"default weighted average", []*suite.Grader{hit("a", 1), miss("b", 1)}, nil, false, 0.5, result.Fail, ""},
		{"member weights", []*suite.Grader{hit("a", 3), miss("b", 1)}, nil, false, 0.75, result.Borderline, ""},
		{"aggregator weights win", []*suite.Grader{hit("a", 1), miss("b", 1)},
			map[string]any{"type": "weighted_average", "weights": map[string]any{"a": 4, "b": 1}}, false, 0.8, result.Pass, ""},
		{"string aggregator", []*suite.Grader{hit("a", 1), hit("b", 1)}, "weighted_average", false, 1, result.Pass, ""},
		{"threshold met", []*suite.Grader{hit("a", 1), hit("b", 1), miss("c", 1)},
			map[string]any{"type": "threshold", "threshold": 0.6}, false, 2.0 / 3, result.Pass, ""},
		{"threshold missed", []*suite.Grader{hit("a", 1), miss("b", 1), miss("c", 1)},
			map[string]any{"type": "threshold", "threshold": 0.5}, false, 1.0 / 3, result.Fail, ""},
		{"skip members left out", []*suite.Grader{hit("a", 1), member("s", "test-skip", nil, 5)}, nil, false, 1, result.Pass, ""},
		{"all skipped", []*suite.Grader{member("s", "test-skip", nil, 1)}, nil, false, 0, result.Skip, ""},
		{"negated", []*suite.Grader{miss("a", 1)}, nil, true, 1, result.Pass, ""},
		{"member error", []*suite.Grader{hit("a", 1), member("bad", "latency", nil, 1)}, nil, false, 0, result.Error, "member bad"},
		{"unknown member type", []*suite.Grader{hit("a", 1), member("sim", "similar", nil, 1)}, nil, false, 0, result.Error, "not available"},
		{"judge member without judge", []*suite.Grader{hit("a", 1), member("j", "llm-grader", nil, 1)}, nil, false, 0, result.Error, "no judge configured"},
		{"nested composite", []*suite.Grader{hit("a", 1), {Name: "inner", Type: "composite", Weight: 1,
			Members: []*suite.Grader{hit("i1", 1), miss("i2", 1)}}}, nil, false, 0.75, result.Borderline, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := spec("composite", map[string]any{"aggregator": tt.aggregator})
			s.Members, s.Negate = tt.members, tt.negate
			r := gradeIn(t, s, &Input{Output: &result.Output{Answer: "hello world"}})
			wantResult(t, r, tt.score, tt.want)
			if !strings.Contains(r.Error, tt.wantErr) {
				t.Errorf("error %q, want %q", r.Error, tt.wantErr)
			}
			if len(r.Members) != len(tt.members) {
				t.Fatalf("%d member results, want %d", len(r.Members), len(tt.members))
			}
			for i, m := range r.Members {
				if m.Name != tt.members[i].Name {
					t.Errorf("member %d is %s, want %s", i, m.Name, tt.members[i].Name)
				}
			}
		})
	}
}

func TestCompositeAssertionsAndUsage(t *testing.T) {
	t.Parallel()
	s := spec("composite", map[string]any{"aggregator": map[string]any{"type": "threshold", "threshold": 1}})
	s.Members = []*suite.Grader{
		{Name: "greets", Type: "contains", Value: "hello", Weight: 1},
		{Name: "fast", Type: "latency", Params: map[string]any{"threshold": 10}, Weight: 1},
	}
	r := gradeIn(t, s, &Input{Output: &result.Output{Answer: "hello", DurationMS: 50}})
	wantResult(t, r, 0.5, result.Fail)
	if len(r.Assertions) != 3 || r.Assertions[0].Text != "1/2 members passed (threshold: 1)" ||
		!strings.HasPrefix(r.Assertions[1].Text, "[greets] ") || !strings.HasPrefix(r.Assertions[2].Text, "[fast] ") {
		t.Errorf("assertions %+v", r.Assertions)
	}
}

func TestCompositeConfigErrors(t *testing.T) {
	t.Parallel()
	members := []*suite.Grader{{Name: "a", Type: "contains", Value: "x", Weight: 1}}
	tests := []struct {
		aggregator any
		members    []*suite.Grader
		want       string
	}{
		{nil, nil, "needs assertions"},
		{map[string]any{"type": "threshold"}, members, "needs threshold"},
		{map[string]any{"type": "threshold", "threshold": 1.5}, members, "between 0 and 1"},
		{map[string]any{"type": "code-grader"}, members, "needs path"},
		{map[string]any{"type": "code-grader", "path": []any{"node", "agg.js"}}, members, "path must be a string"},
		{map[string]any{"type": "llm-grader"}, members, "no judge configured"},
		{map[string]any{"type": "llm-grader", "prompt": 3}, members, "prompt must be a string"},
		{map[string]any{"type": "code-judge", "path": "agg.js"}, members, `use "code-grader"`},
		{map[string]any{"type": "threshold", "threshold": 0.5, "weights": map[string]any{"a": 1}}, members, "weights does not apply to a threshold aggregator"},
		{map[string]any{"type": "llm-grader", "path": "agg.js"}, members, "path does not apply to a llm-grader aggregator (it reads prompt)"},
		{map[string]any{"type": "median"}, members, "unknown composite aggregator"},
		{map[string]any{"weights": map[string]any{"b": 1}}, members, `names "b", which is not a member`},
		{map[string]any{"weights": map[string]any{"a": -1}}, members, "non-negative"},
		{map[string]any{"weights": []any{1}}, members, "weights must be a map"},
		{42, members, "aggregator must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			s := spec("composite", map[string]any{"aggregator": tt.aggregator})
			s.Members = tt.members
			wantConfigError(t, s, tt.want)
		})
	}
}

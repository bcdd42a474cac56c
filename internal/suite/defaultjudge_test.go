package suite

import (
	"strings"
	"testing"
)

// TestDefaultTestProviderPicksTheJudge: default_test.options.provider (promptfoo's grading
// model) is the judge of every judge grader without a target: of its own.
func TestDefaultTestProviderPicksTheJudge(t *testing.T) {
	t.Parallel()
	const tests = "tests:\n  - id: t\n    input: hi\n    assertions:\n      - type: rubrics\n        criteria: [polite]\n" +
		"      - type: rubrics\n        target: own\n        criteria: [brief]\n      - type: contains\n        value: hi\n"
	cases := []struct {
		name     string
		provider string
		want     []string // the graders' targets, in order
		warn     string
	}{
		{"a name", "strict-judge", []string{"strict-judge", "own", ""}, ""},
		{"an id", "{id: strict-judge}", []string{"strict-judge", "own", ""}, ""},
		{"a promptfoo provider id", "openai:gpt-4o", []string{"openai:gpt-4o", "own", ""}, "is a promptfoo provider id"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := "default_test:\n  options:\n    provider: " + tt.provider + "\n" + tests
			s, _, ds := loadEnv(t, "a.eval.yaml", body)
			if ds.HasErrors() {
				t.Fatal(dump(ds))
			}
			var got []string
			for _, g := range s.Tests[0].Graders {
				got = append(got, g.Target)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("targets %q, want %q", got, tt.want)
			}
			if tt.warn != "" && !strings.Contains(dump(ds), tt.warn) {
				t.Errorf("no warning %q:\n%s", tt.warn, dump(ds))
			}
		})
	}
}

// TestJudgeAssertionThresholdIsAGate: promptfoo's threshold on an llm-rubric fails the
// assertion, so the test, below it: a required grader with that min_score.
func TestJudgeAssertionThresholdIsAGate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, assert string
		required     bool
		min          float64 // 0 = nil
	}{
		{"threshold", "      - type: llm-rubric\n        value: is friendly\n        threshold: 0.7\n", true, 0.7},
		{"min_score wins", "      - type: llm-rubric\n        value: is friendly\n        threshold: 0.7\n        min_score: 0.9\n", false, 0.9},
		{"no threshold", "      - type: llm-rubric\n        value: is friendly\n", false, 0},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, ds := loadEnv(t, "a.eval.yaml", "tests:\n  - id: t\n    input: hi\n    assert:\n"+tt.assert)
			if ds.HasErrors() {
				t.Fatal(dump(ds))
			}
			g := s.Tests[0].Graders[0]
			var min float64
			if g.MinScore != nil {
				min = *g.MinScore
			}
			if g.Required != tt.required || min != tt.min {
				t.Errorf("required %v min %v, want %v %v", g.Required, min, tt.required, tt.min)
			}
		})
	}
}

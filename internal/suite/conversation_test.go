package suite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConversationParse(t *testing.T) {
	t.Parallel()
	body := `tests:
  - id: chat
    mode: conversation
    criteria: Stays on topic
    aggregation: min
    on_turn_failure: stop
    window_size: 2
    vars: {city: Paris}
    input:
      - role: system
        content: You are a tutor.
    turns:
      - input: What is the capital of France?
        expected_output: "{{ city }}"
        assertions:
          - Names Paris
          - Is brief
          - type: contains
            value: Paris
      - input: {ask: population}
      - input: And its river?
        assertions:
          - type: contains
            value: Seine
    assertions:
      - Stays consistent
`
	s, ds := parseString(t, body, nil)
	if ds.HasErrors() || s == nil {
		t.Fatalf("diagnostics:\n%s", dump(ds))
	}
	tc := s.Tests[0]
	c := tc.Conversation
	if c == nil {
		t.Fatal("no conversation")
	}
	if c.Aggregation != "min" || c.OnTurnFailure != "stop" || c.WindowSize != 2 || c.Pos.Line != 3 {
		t.Errorf("settings = %+v", c)
	}
	if len(c.Turns) != 3 {
		t.Fatalf("turns = %d", len(c.Turns))
	}
	t1 := c.Turns[0]
	if t1.Input != "What is the capital of France?" || tc.Conversation.Turns[0].Pos.Line != 13 {
		t.Errorf("turn 1 = %q at %v", t1.Input, t1.Pos)
	}
	if len(t1.ExpectedOutput) != 1 || t1.ExpectedOutput[0].Content != "Paris" || t1.ExpectedOutput[0].Role != "assistant" {
		t.Errorf("turn 1 expected = %+v (vars interpolated)", t1.ExpectedOutput)
	}
	var names []string
	var weights []float64
	for _, g := range t1.Graders {
		names, weights = append(names, g.Name), append(weights, g.Weight)
	}
	if diff := cmp.Diff([]string{"turn-rubrics", "contains-Paris"}, names); diff != "" {
		t.Errorf("turn 1 graders (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 1}, weights); diff != "" {
		t.Errorf("turn 1 grader weights (-want +got):\n%s", diff)
	}
	if got := len(t1.Graders[0].Criteria); got != 2 {
		t.Errorf("turn-rubrics criteria = %d", got)
	}
	if got := c.Turns[1].Input; got != `{"ask":"population"}` {
		t.Errorf("structured turn input = %q, want its JSON", got)
	}
	if len(c.Turns[1].Graders) != 0 {
		t.Errorf("turn 2 graders = %v", c.Turns[1].Graders)
	}
	// Test-level assertions grade the transcript; no implicit judge is added per test.
	if len(tc.Graders) != 1 || tc.Graders[0].Name != "rubrics" || tc.Graders[0].Weight != 1 {
		t.Errorf("conversation graders = %+v", tc.Graders)
	}
	if len(tc.Input) != 1 || tc.Input[0].Role != "system" {
		t.Errorf("opening input = %+v", tc.Input)
	}
}

func TestConversationDefaults(t *testing.T) {
	t.Parallel()
	s, ds := parseString(t, "tests:\n  - id: c\n    mode: conversation\n    input: hi\n    turns:\n      - input: one\n", nil)
	if ds.HasErrors() {
		t.Fatalf("diagnostics:\n%s", dump(ds))
	}
	c := s.Tests[0].Conversation
	if c.Aggregation != AggregateMean || c.OnTurnFailure != OnTurnContinue || c.WindowSize != 0 {
		t.Errorf("defaults = %+v", c)
	}
	if len(s.Tests[0].Graders) != 0 {
		t.Errorf("a conversation without assertions has no transcript graders, got %+v", s.Tests[0].Graders)
	}
	// A plain test keeps its implicit judge and has no turns.
	p, ds := parseString(t, "tests:\n  - id: p\n    input: hi\n    criteria: c\n", nil)
	if ds.HasErrors() || p.Tests[0].Conversation != nil || p.Tests[0].Turns() != nil || len(p.Tests[0].Graders) != 1 {
		t.Errorf("plain test: %+v\n%s", p.Tests[0], dump(ds))
	}
}

func TestConversationErrors(t *testing.T) {
	t.Parallel()
	const conv = "tests:\n  - id: c\n    input: hi\n    mode: conversation\n"
	const turns = "    turns:\n      - input: one\n"
	tests := []struct {
		name      string
		body      string
		line, col int
		want      string
	}{
		{"turns without mode", "tests:\n  - id: c\n    input: hi\n    criteria: x\n" + turns, 5, 5, "turns requires mode: conversation"},
		{"aggregation without mode", "tests:\n  - id: c\n    input: hi\n    criteria: x\n    aggregation: min\n", 5, 5, "aggregation requires mode: conversation"},
		{"on_turn_failure without mode", "tests:\n  - id: c\n    input: hi\n    criteria: x\n    on_turn_failure: stop\n", 5, 5, "on_turn_failure requires mode: conversation"},
		{"window_size without mode", "tests:\n  - id: c\n    input: hi\n    criteria: x\n    window_size: 2\n", 5, 5, "window_size requires mode: conversation"},
		{"unknown mode", "tests:\n  - id: c\n    input: hi\n    criteria: x\n    mode: chat\n", 5, 11, `mode must be "conversation"`},
		{"no turns", conv, 4, 5, "requires a non-empty turns list"},
		{"empty turns", conv + "    turns: []\n", 5, 12, "requires a non-empty turns list"},
		{"unknown aggregation", conv + "    aggregation: median\n" + turns, 5, 18, `aggregation must be mean, min or max, not "median"`},
		{"unknown on_turn_failure", conv + "    on_turn_failure: abort\n" + turns, 5, 22, `on_turn_failure must be continue or stop, not "abort"`},
		{"window_size zero", conv + "    window_size: 0\n" + turns, 5, 18, "window_size must be at least 1"},
		{"window_size fraction", conv + "    window_size: 1.5\n" + turns, 5, 18, "window_size must be a whole number"},
		{"window_size text", conv + "    window_size: all\n" + turns, 5, 18, "window_size must be a number"},
		{"turn without input", conv + "    turns:\n      - expected_output: x\n", 6, 9, "turns[0] needs a non-empty input"},
		{"turn with blank input", conv + "    turns:\n      - input: one\n      - input: \"  \"\n", 7, 16, "turns[1] needs a non-empty input"},
		{"turn not a mapping", conv + "    turns:\n      - just text\n", 6, 9, "turns[0] must be a mapping"},
		{"top-level expected_output", conv + "    expected_output: x\n" + turns, 5, 5, "top-level expected_output is not allowed with mode: conversation"},
		{"turn typo", conv + "    turns:\n      - input: one\n        assertion: [x]\n", 7, 9, `unknown key "assertion" (did you mean "assertions"?)`},
		{"bad turn assertion", conv + "    turns:\n      - input: one\n        assertions:\n          - type: containz\n", 8, 19, `unknown grader type "containz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ds := parseString(t, tt.body, nil)
			wantError(t, ds, tt.line, tt.col, tt.want)
		})
	}
}

// A conversation with a suite that carries a fixture file on another line keeps file:line:col
// pointing into the file the turns were written in.
func TestConversationInTestsFile(t *testing.T) {
	t.Parallel()
	cases := "- id: c\n  input: hi\n  mode: conversation\n  turns:\n    - input: one\n    - input: \"\"\n"
	_, ds := parseString(t, "tests: file://cases.yaml\n", map[string]string{"evals/cases.yaml": cases})
	for _, d := range ds {
		if d.Severity == Error && d.Pos.File == "evals/cases.yaml" && d.Pos.Line == 6 {
			return
		}
	}
	t.Errorf("no error at evals/cases.yaml:6 in:\n%s", dump(ds))
}

package suite

import (
	"strings"
	"testing"
)

func TestCompositeAggregator(t *testing.T) {
	t.Parallel()
	member := "        assertions:\n          - {name: a, type: contains, value: x}\n"
	tests := []struct {
		name, aggregator string
		files            map[string]string
		prompt           any    // the aggregator prompt the grader gets
		judge            bool   // IsJudge
		diag             string // a diagnostic's text, "" for none
		isErr            bool
	}{
		{"file prompt is read", "{type: llm-grader, prompt: 'file://../prompts/agg.md'}",
			map[string]string{"prompts/agg.md": "Decide: {{EVALUATOR_RESULTS_JSON}}"}, "Decide: {{EVALUATOR_RESULTS_JSON}}", true, "", false},
		{"bare prompt is text", "{type: llm-grader, prompt: 'Weigh {{EVALUATOR_RESULTS_JSON}}'}", nil, "Weigh {{EVALUATOR_RESULTS_JSON}}", true, "", false},
		{"bare path warns", "{type: llm-grader, prompt: ../prompts/agg.md}", nil, "../prompts/agg.md", true,
			"write file://../prompts/agg.md to load the file", false},
		{"missing prompt file", "{type: llm-grader, prompt: 'file://nope.md'}", nil, "file://nope.md", true, "aggregator.prompt file://nope.md", true},
		{"string form", "llm_grader", nil, nil, true, "", false},
		{"code aggregator", "{type: code-grader, path: node ../scripts/agg.js}", nil, nil, false, "", false},
		{"unknown key", "{type: threshold, threshold: 0.5, treshold: 1}", nil, nil, false, `unknown key "treshold"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := head + "      - name: c\n        type: composite\n" + member + "        aggregator: " + tt.aggregator + "\n"
			s, ds := parseString(t, body, tt.files)
			if (tt.diag == "") != (len(ds) == 0) || !strings.Contains(dump(ds), tt.diag) || ds.HasErrors() != tt.isErr {
				t.Fatalf("diagnostics %q, want %q (error: %v)", dump(ds), tt.diag, tt.isErr)
			}
			if tt.isErr {
				return
			}
			g := s.Tests[0].Graders[0]
			if agg, ok := g.Params["aggregator"].(map[string]any); ok && tt.prompt != nil && agg["prompt"] != tt.prompt {
				t.Errorf("prompt %q, want %q", agg["prompt"], tt.prompt)
			}
			if g.IsJudge() != tt.judge {
				t.Errorf("IsJudge = %v, want %v", g.IsJudge(), tt.judge)
			}
		})
	}
}

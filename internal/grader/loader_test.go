package grader

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// TestLoadedSuite grades a recorded run with graders as the loader builds them from YAML, so
// the Params keys and shapes the graders read are the loader's.
func TestLoadedSuite(t *testing.T) {
	t.Parallel()
	s, diags := suite.Load("testdata/agent.eval.yaml", suite.LoadOptions{Root: "."})
	for _, d := range diags {
		t.Errorf("load: %s", d)
	}
	if s == nil || len(s.Tests) != 1 {
		t.Fatalf("suite %v", s)
	}
	out := &result.Output{
		Answer:     "```json\n{\"number\": \"INV-7\", \"total\": 100.5, \"date\": \"15-JAN-2025\"}\n```",
		Messages:   []result.Message{{Role: "assistant"}, {Role: "assistant"}},
		ToolCalls:  []result.ToolCall{call("Read", map[string]any{"file_path": "inv.pdf"}), {Tool: "Skill", Input: map[string]any{"skill": "pdf"}, DurationMS: 400}},
		Usage:      result.Usage{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.02},
		DurationMS: 3000,
	}
	want := map[string]struct {
		score   float64
		verdict result.Verdict
	}{
		"script":     {1, result.Pass},
		"trajectory": {1, result.Pass}, // 2 calls + 1 latency budget
		"reads":      {1, result.Pass},
		"fast":       {1, result.Pass},
		"cheap":      {1, result.Pass},
		"tokens":     {1, result.Pass},
		"metrics":    {1, result.Pass},
		// camelCase keys: all five limits and the exploration ratio hold; Read's arguments
		// differ but args are ignored, Skill's 400 ms exceeds its 300 ms budget.
		"metrics-camel":    {1, result.Pass},
		"tokens-camel":     {1, result.Pass},
		"trajectory-camel": {2.0 / 3, result.Borderline},
		"skill":            {1, result.Pass},
		"no-docx":          {1, result.Pass},
		"fields":           {1, result.Pass},
		"all":              {0.75, result.Borderline},
		"any-two":          {0.5, result.Pass},
	}
	in := &Input{Suite: s, Test: s.Tests[0], Output: out, Thresholds: result.DefaultThresholds}
	for _, spec := range s.Tests[0].Graders {
		w, ok := want[spec.Name]
		if !ok {
			t.Errorf("unexpected grader %s", spec.Name)
			continue
		}
		r := gradeIn(t, spec, in)
		if r.Score != w.score || r.Verdict != w.verdict {
			t.Errorf("%s (%s): score %v verdict %s, want %v %s (error %q, assertions %+v)",
				spec.Name, spec.Type, r.Score, r.Verdict, w.score, w.verdict, r.Error, r.Assertions)
		}
		if spec.Name == "reads" && (len(r.Assertions) != 2 || !strings.HasPrefix(r.Assertions[0].Text, "Skill:") || !strings.HasPrefix(r.Assertions[1].Text, "Read:")) {
			t.Errorf("reads: minimums reported as %+v, want Skill then Read (YAML order)", r.Assertions)
		}
		delete(want, spec.Name)
	}
	for name := range want {
		t.Errorf("grader %s not loaded", name)
	}
}

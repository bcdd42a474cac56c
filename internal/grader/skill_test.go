package grader

import (
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

func TestSkillTrigger(t *testing.T) {
	t.Parallel()
	skillCall := call("Skill", map[string]any{"skill": "acme:pdf-tools"})
	readCall := call("Read", map[string]any{"file_path": "/home/u/.claude/skills/pdf-tools/SKILL.md"})
	readOther := call("Read", map[string]any{"path": "/repo/skills/pdf-tools-extra/SKILL.md"})
	outCall := result.ToolCall{Tool: "Bash", Input: map[string]any{"command": "ls"}, Output: "found skills/pdf-tools/SKILL.md"}
	outJSON := result.ToolCall{Tool: "Glob", Output: []any{"skills/pdf-tools/run.py"}}
	tests := []struct {
		name   string
		should any
		calls  []result.ToolCall
		score  float64
	}{
		{"skill tool", nil, []result.ToolCall{call("Bash", nil), skillCall}, 1},
		{"skill tool lower case", nil, []result.ToolCall{call("skill", map[string]any{"skill": "pdf-tools"})}, 1},
		{"read of skill file", nil, []result.ToolCall{readCall}, 1},
		{"tool output mentions it", nil, []result.ToolCall{outCall}, 1},
		{"structured output mentions it", nil, []result.ToolCall{outJSON}, 1},
		{"other skill dir", nil, []result.ToolCall{readOther, call("Skill", map[string]any{"skill": "docx"})}, 0},
		{"no calls", nil, nil, 0},
		{"should not trigger and did not", false, []result.ToolCall{call("Bash", nil)}, 1},
		{"should not trigger but did", false, []result.ToolCall{skillCall}, 0},
		{"should trigger explicit", true, []result.ToolCall{readCall}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := map[string]any{"skill": "pdf-tools"}
			if tt.should != nil {
				p["should_trigger"] = tt.should
			}
			r := gradeIn(t, spec("skill-trigger", p), outputWith(tt.calls...))
			want := result.Fail
			if tt.score == 1 {
				want = result.Pass
			}
			wantResult(t, r, tt.score, want)
			if len(r.Assertions) != 1 || r.Assertions[0].Passed != (tt.score == 1) {
				t.Errorf("assertions %+v", r.Assertions)
			}
		})
	}
}

func TestSkillTriggerConfig(t *testing.T) {
	t.Parallel()
	wantConfigError(t, spec("skill-trigger", map[string]any{}), "needs skill")
	wantConfigError(t, spec("skill-trigger", map[string]any{"skill": "x", "should_trigger": "no"}), "should_trigger must be true or false")
	s := spec("skill-trigger", map[string]any{"skill": "x"})
	s.Negate = true
	wantResult(t, gradeIn(t, s, outputWith()), 1, result.Pass)
}

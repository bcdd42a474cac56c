package grader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// skillTrigger checks whether the agent used a named skill (AgentV's skill-trigger): a Skill
// tool call naming it, a Read of a file under skills/<name>/, or a tool output referring to such
// a file. Tool names are the canonical Claude set the trace parsers normalise to.
type skillTrigger struct {
	spec          *suite.Grader
	skill         string
	shouldTrigger bool
}

func newSkillTrigger(spec *suite.Grader, _ Deps) (Grader, error) {
	p := params(spec.Params)
	skill, err := p.str("skill")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(skill) == "" {
		return nil, errors.New("skill-trigger grader needs skill")
	}
	should, err := p.boolean("should_trigger", true)
	if err != nil {
		return nil, err
	}
	return skillTrigger{spec: spec, skill: skill, shouldTrigger: should}, nil
}

func (g skillTrigger) Grade(_ context.Context, in *Input) *result.GraderResult {
	r := base(g.spec)
	calls := toolCalls(in.Output)
	evidence, triggered := g.find(calls)
	var text string
	switch {
	case triggered && g.shouldTrigger:
		text = evidence
	case !triggered && !g.shouldTrigger:
		text = fmt.Sprintf("Skill %q correctly did not trigger", g.skill)
	case triggered:
		text = fmt.Sprintf("Skill %q triggered unexpectedly: %s", g.skill, evidence)
	case len(calls) == 0:
		text = fmt.Sprintf("Skill %q not triggered: no tool calls recorded", g.skill)
	default:
		text = fmt.Sprintf("Skill %q not found in %d tool call(s)", g.skill, len(calls))
	}
	ok := triggered == g.shouldTrigger
	r.Assertions = []result.Assertion{{Text: text, Passed: ok}}
	r.Details = map[string]any{"triggered": triggered, "should_trigger": g.shouldTrigger}
	binary(r, ok)
	return negate(g.spec, r)
}

// find scans every call and returns the first evidence of the skill.
func (g skillTrigger) find(calls []result.ToolCall) (string, bool) {
	dir := "skills/" + g.skill + "/"
	for _, c := range calls {
		input, _ := asObject(c.Input)
		switch strings.ToLower(c.Tool) {
		case "skill":
			if s := fmt.Sprint(input["skill"]); input["skill"] != nil && strings.Contains(s, g.skill) {
				return fmt.Sprintf("Skill tool invoked with skill=%q", s), true
			}
		case "read":
			path := input["file_path"]
			if path == nil {
				path = input["path"]
			}
			if s, _ := path.(string); strings.Contains(s, dir) {
				return fmt.Sprintf("Read tool loaded skill file %s", s), true
			}
		}
		if c.Output != nil && strings.Contains(outputText(c.Output), dir) {
			return fmt.Sprintf("Tool %q output referenced a file of skill %q", c.Tool, g.skill), true
		}
	}
	return "", false
}

// outputText is a tool output as text: strings as they are, anything else as JSON.
func outputText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// Package grader turns a suite.Grader spec into something that grades one test output:
// deterministic graders (contains, regex, equals, is-json, …), the LLM judge, and the agent
// graders (scripts, traces), behind one interface.
package grader

import (
	"context"
	"fmt"

	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Input is one test's output to grade.
type Input struct {
	Suite      *suite.Suite
	Test       *suite.Test
	Question   string // the rendered input, as the target saw it
	Output     *result.Output
	Thresholds result.Thresholds
}

// Grader grades one test output. Failures are data: the result's Verdict is error with Error
// set; Grade never returns nil.
type Grader interface {
	Grade(ctx context.Context, in *Input) *result.GraderResult
}

// Deps are what graders need from outside.
type Deps struct {
	// Judge returns the judge for a grader target name ("" = the test's default judge).
	Judge func(target string) (*judge.Judge, error)
}

// constructor builds a grader for one spec type.
type constructor func(spec *suite.Grader, deps Deps) (Grader, error)

// constructors maps a normalised grader type to its constructor. Types the loader knows but
// no grader implements yet are absent: New reports them, and the test records an error.
var constructors = map[string]constructor{
	"contains":      newText,
	"icontains":     newText,
	"contains-any":  newText,
	"contains-all":  newText,
	"icontains-any": newText,
	"icontains-all": newText,
	"starts-with":   newText,
	"ends-with":     newText,
	"equals":        newText,
	"regex":         newRegex,
	"is-json":       newIsJSON,
	"rubrics":       newJudge,
	"llm-grader":    newJudge,
	"likert":        newJudge,

	"code-grader":       newCode,
	"tool-trajectory":   newTrajectory,
	"latency":           newLatency,
	"cost":              newCost,
	"token-usage":       newTokenUsage,
	"execution-metrics": newExecutionMetrics,
	"skill-trigger":     newSkillTrigger,
	"field-accuracy":    newFieldAccuracy,
	// composite is dispatched in New: its constructor calls New, and a map entry would make
	// an initialization cycle.
}

// New builds the grader for a spec. A type with no implementation yields a grader whose result
// is an error: an unimplemented check must never read as a pass.
func New(spec *suite.Grader, deps Deps) (Grader, error) {
	c, ok := constructors[spec.Type]
	if spec.Type == "composite" {
		c, ok = newComposite, true
	}
	if !ok {
		return failing{spec: spec, msg: fmt.Sprintf("grader type %q is not available in this version of evalgate", spec.Type)}, nil
	}
	g, err := c(spec, deps)
	if err != nil {
		return nil, fmt.Errorf("grader %s (%s): %w", spec.Name, spec.Pos, err)
	}
	return g, nil
}

// base starts a result carrying the spec's identity and gate.
func base(spec *suite.Grader) *result.GraderResult {
	return &result.GraderResult{
		Name:     spec.Name,
		Type:     spec.Type,
		Weight:   spec.Weight,
		Required: spec.Required,
		MinScore: spec.MinScore,
		File:     spec.Pos.File,
		Line:     spec.Pos.Line,
	}
}

// failing is a grader that can only report why it cannot grade.
type failing struct {
	spec *suite.Grader
	msg  string
}

func (f failing) Grade(context.Context, *Input) *result.GraderResult {
	r := base(f.spec)
	r.Verdict, r.Error = result.Error, f.msg
	return r
}

// judged runs an LLM judge grader.
type judged struct {
	spec *suite.Grader
	deps Deps
}

func newJudge(spec *suite.Grader, deps Deps) (Grader, error) {
	if deps.Judge == nil {
		return nil, fmt.Errorf("no judge configured")
	}
	return judged{spec: spec, deps: deps}, nil
}

func (j judged) Grade(ctx context.Context, in *Input) *result.GraderResult {
	jd, err := j.deps.Judge(j.spec.Target)
	if err != nil {
		r := base(j.spec)
		r.Verdict, r.Error, r.Err = result.Error, err.Error(), err
		return r
	}
	ji := &judge.Input{
		Question: in.Question,
		Criteria: in.Test.Criteria,
		Tag:      llm.Tag{TestID: in.Test.ID, Grader: j.spec.Name},
	}
	if in.Suite != nil {
		ji.Tag.Suite = in.Suite.Name
	}
	ji.Reference = in.Test.Reference()
	if in.Output != nil {
		ji.Answer, ji.FileChanges, ji.ToolCalls = in.Output.Answer, in.Output.FileChanges, in.Output.ToolCalls
	}
	r := jd.Grade(ctx, j.spec, ji, in.Thresholds)
	// The judge fills scores; identity and gate come from the spec so every grader reports
	// them the same way.
	id := base(j.spec)
	r.Name, r.Type, r.Weight, r.Required, r.MinScore, r.File, r.Line = id.Name, id.Type, id.Weight, id.Required, id.MinScore, id.File, id.Line
	return negate(j.spec, r)
}

// Package grader turns a suite.Grader spec into something that grades one test output:
// deterministic graders (contains, regex, equals, is-json, …), the LLM judge, and the agent
// graders (scripts, traces), behind one interface.
package grader

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/proc"
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
	// User is who grader scripts, custom assertions, prompt templates and preprocessors run
	// as (nil = evalgate's own user).
	User *proc.User
}

// Grader grades one test output. Failures are data: the result's Verdict is error with Error
// set; Grade never returns nil.
type Grader interface {
	Grade(ctx context.Context, in *Input) *result.GraderResult
}

// Deps are what graders need from outside.
type Deps struct {
	// Judge returns the judge for a grader target name ("" = the test's default judge). It is
	// called when a judge grader grades, never by New.
	Judge func(target string) (*judge.Judge, error)
	// Scripts is evalgate's copy of the scripts graders run, taken before the first agent
	// started (Snapshot); nil runs them from where the suite names them.
	Scripts *Pristine

	// validate makes every setting that would fail at run time an error of New, where a run
	// gets a grader that reports it on each test (Validate sets it).
	validate bool
}

// ConfigError is a grader spec that cannot work, with where it is written.
type ConfigError struct {
	Pos    suite.Pos
	Grader string
	Err    error
}

// Error names the configuration problem.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("grader %s (%s): %v", e.Grader, e.Pos, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *ConfigError) Unwrap() error { return e.Err }

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

// New builds the grader for a spec; it reads only the spec, starts nothing and calls no judge.
// A bad setting is a *ConfigError. A type with no implementation, or a setting evalgate does
// not support, yields a grader whose result is an error: an unimplemented check must never
// read as a pass (Validate reports those too).
func New(spec *suite.Grader, deps Deps) (Grader, error) {
	c, ok := constructors[spec.Type]
	switch {
	case spec.Type == "composite":
		c, ok = newComposite, true
	case spec.Custom != "":
		c, ok = newCustom, true
	}
	if !ok {
		return unsupported(spec, deps, fmt.Sprintf("grader type %q is not available in this version of evalgate", spec.Type))
	}
	g, err := c(spec, deps)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) { // a composite member's, which names its own place
			return nil, err
		}
		return nil, &ConfigError{Pos: spec.Pos, Grader: spec.Name, Err: err}
	}
	return g, nil
}

// validate checks a grader's own settings without running it: no judge is resolved, no
// process started, no file read. A nil error means nothing in the spec makes the grader fail
// at run time for a configuration reason; the judge target a judge grader uses (its Target,
// or the test's default judge) is the caller's to check. Errors are *ConfigError.
func validate(spec *suite.Grader) error {
	_, err := New(spec, Deps{Judge: func(string) (*judge.Judge, error) {
		return nil, errors.New("validate resolves no judge")
	}, validate: true})
	return err
}

// unsupported is the grader for a spec evalgate cannot run: an error result on every test,
// or, when validating, the error itself.
func unsupported(spec *suite.Grader, deps Deps, msg string) (Grader, error) {
	if deps.validate {
		return nil, &ConfigError{Pos: spec.Pos, Grader: spec.Name, Err: errors.New(msg)}
	}
	return failing{spec: spec, msg: msg}, nil
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
	if err := judge.Validate(spec); err != nil {
		return nil, err
	}
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
		ji.Answer, ji.FileChanges, ji.ToolCalls = answerText(ctx, in, j.spec, j.deps.Scripts), in.Output.FileChanges, in.Output.ToolCalls
	}
	spec := j.spec
	if len(spec.PromptCommand) > 0 {
		// The script's prompt is the whole judge template, {{ vars }} included (AgentV's rule).
		prompt, err := renderPrompt(ctx, spec, in, j.deps.Scripts)
		if err != nil {
			r := base(j.spec)
			r.Verdict, r.Error, r.Err = result.Error, err.Error(), err
			return r
		}
		rendered := *spec
		rendered.Prompt, rendered.PromptIsTemplate, rendered.PromptCommand = prompt, true, nil
		spec = &rendered
	}
	r := jd.Grade(ctx, spec, ji, in.Thresholds)
	// The judge fills scores; identity and gate come from the spec so every grader reports
	// them the same way.
	id := base(j.spec)
	r.Name, r.Type, r.Weight, r.Required, r.MinScore, r.File, r.Line = id.Name, id.Type, id.Weight, id.Required, id.MinScore, id.File, id.Line
	return negate(j.spec, r)
}

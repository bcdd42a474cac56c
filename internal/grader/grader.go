// Package grader turns a suite.Grader spec into something that grades one test output:
// deterministic graders (contains, regex, equals, is-json, …), script graders, trace graders
// and the LLM judge, behind one interface.
package grader

import (
	"context"

	"github.com/evalgate/evalgate/internal/judge"
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

// New builds the grader for a spec.
func New(spec *suite.Grader, deps Deps) (Grader, error) {
	panic("contract: filled in by the grader work")
}

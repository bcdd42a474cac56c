// Package judge is the LLM rubric judge: it builds AgentV's judge prompt (checklist,
// score-range, Likert and freeform forms), sends it through an llm.Client, parses and repairs
// the reply, retries what is missing, and scores the findings with package rubric.
package judge

import (
	"context"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Input is what the judge sees of one test.
type Input struct {
	Question    string
	Criteria    string
	Reference   string
	Answer      string
	FileChanges string
	ToolCalls   []result.ToolCall
	Tag         llm.Tag
}

// Judge grades rubric graders with a model.
type Judge struct {
	Client llm.Client
	// Name is the judge target's name, for reports and errors.
	Name string
	// Temperature defaults to 0 when nil.
	Temperature *float64
	// Samples is the default number of times to ask (a grader's samples: wins), 0 = 1.
	Samples int
	// MaxAttempts bounds re-asks for unparseable or incomplete replies, 0 = 3.
	MaxAttempts int
	// DiffBudget caps the file_changes section in bytes, 0 = default.
	DiffBudget int
}

// Grade runs one judge grader (rubrics, llm-grader, likert) on one test. Failures are data:
// the returned result has Verdict error and Error set; it never returns nil.
func (j *Judge) Grade(ctx context.Context, g *suite.Grader, in *Input, th result.Thresholds) *result.GraderResult {
	panic("contract: filled in by the judge work")
}

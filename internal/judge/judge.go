// Package judge is the LLM rubric judge: it builds AgentV's judge prompt (checklist,
// score-range, Likert and freeform forms), sends it through an llm.Client, parses and repairs
// the reply, asks again for what is missing, and scores the findings with package rubric.
package judge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

// defaultMaxAttempts is how many times the judge is asked before a criterion becomes an error.
const defaultMaxAttempts = 3

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
	// Temperature defaults to 0 when nil: grading should be as repeatable as the model allows.
	Temperature *float64
	// Samples is the default number of times to ask (a grader's samples: wins), 0 = 1.
	Samples int
	// MaxAttempts bounds re-asks for unparseable or incomplete replies, 0 = 3.
	MaxAttempts int
	// DiffBudget caps the file_changes section in bytes, 0 = defaultDiffBudget.
	DiffBudget int
}

// Grade runs one judge grader (rubrics, llm-grader, likert) on one test. Failures are data:
// the returned result has Verdict error and Error set; it never returns nil.
func (j *Judge) Grade(ctx context.Context, g *suite.Grader, in *Input, th result.Thresholds) *result.GraderResult {
	start := time.Now()
	p := j.buildPrompt(g, in, th)
	s := &session{j: j, g: g, prompt: p, tag: in.Tag}
	var r *result.GraderResult
	if g.RubricMode() == suite.ModeFreeform {
		r = s.freeform(ctx, th)
	} else {
		r = s.rubric(ctx, th)
	}
	r.Name, r.Type, r.Weight, r.Required, r.MinScore = g.Name, g.Type, g.Weight, g.Required, g.MinScore
	r.File, r.Line = g.Pos.File, g.Pos.Line
	r.Usage = s.usage
	r.DurationMS = time.Since(start).Milliseconds()
	return r
}

// session is one grader's conversation with the judge.
type session struct {
	j      *Judge
	g      *suite.Grader
	prompt prompt
	tag    llm.Tag
	usage  result.Usage
}

func (s *session) temperature() *float64 {
	switch {
	case s.g.Temperature != nil:
		return s.g.Temperature
	case s.j.Temperature != nil:
		return s.j.Temperature
	}
	zero := 0.0
	return &zero
}

func (s *session) attempts() int {
	if s.j.MaxAttempts > 0 {
		return s.j.MaxAttempts
	}
	return defaultMaxAttempts
}

func (s *session) samples() int {
	k := s.g.Samples
	if k <= 0 {
		k = s.j.Samples
	}
	return max(k, 1)
}

// call sends one request, counting tokens; cached replies cost no call.
func (s *session) call(ctx context.Context, user string, attempt, sample int) (string, error) {
	tag := s.tag
	tag.Attempt, tag.Sample = attempt, sample
	resp, err := s.j.Client.Complete(ctx, &llm.Request{
		System:      s.prompt.System,
		Messages:    []llm.Message{{Role: "user", Content: user}},
		Temperature: s.temperature(),
		Schema:      s.prompt.Schema,
		Tag:         tag,
	})
	if err != nil {
		return "", fmt.Errorf("judge %s: %w", s.j.Name, err)
	}
	s.usage.InputTokens += resp.Usage.InputTokens
	s.usage.OutputTokens += resp.Usage.OutputTokens
	s.usage.CachedTokens += resp.Usage.CachedTokens
	s.usage.CostUSD += resp.CostUSD
	if !resp.Cached {
		s.usage.Calls++
	}
	return resp.Text, nil
}

func errorResult(mode suite.Mode, err error) *result.GraderResult {
	return &result.GraderResult{Mode: string(mode), Verdict: result.Error, Error: err.Error(), Err: err}
}

// repairPrompt asks for the same judgement in valid JSON; it must not re-grade.
func repairPrompt(reply string, parseErr error) string {
	return "Your previous evaluation had useful content but its JSON did not match the schema in the system prompt. " +
		"Rewrite it as one valid JSON object matching that schema. Keep the same judgements; do not grade again.\n\n" +
		"Problem: " + parseErr.Error() + "\n\nPrevious reply:\n" + truncate(reply, 20000)
}

// freeform grades a grader without criteria: one score in [0,1] and assertions.
func (s *session) freeform(ctx context.Context, th result.Thresholds) *result.GraderResult {
	var last string
	var lastErr error
	for attempt := 0; attempt < s.attempts(); attempt++ {
		text, err := s.call(ctx, s.prompt.User, attempt, 0)
		if err != nil {
			return errorResult(suite.ModeFreeform, err)
		}
		f, perr := parseFreeform(text)
		if perr == nil {
			return freeformResult(f, th)
		}
		last, lastErr = text, perr
	}
	if strings.TrimSpace(last) != "" {
		if text, err := s.call(ctx, repairPrompt(last, lastErr), s.attempts(), 0); err == nil {
			if f, perr := parseFreeform(text); perr == nil {
				return freeformResult(f, th)
			}
		}
	}
	return errorResult(suite.ModeFreeform, fmt.Errorf("judge reply unusable after %d attempts: %w", s.attempts(), lastErr))
}

func freeformResult(f *freeform, th result.Thresholds) *result.GraderResult {
	r := &result.GraderResult{Mode: string(suite.ModeFreeform), Score: f.Score, Verdict: rubric.VerdictOf(f.Score, th), Details: f.Details}
	for i, a := range f.Assertions {
		if i == 8 { // AgentV keeps the first eight
			break
		}
		// repairBooleans has made every passed a boolean or left it out: missing is false.
		passed, _ := boolValue(a.Passed)
		r.Assertions = append(r.Assertions, result.Assertion{Text: a.Text, Passed: passed, Evidence: a.Evidence})
	}
	return r
}

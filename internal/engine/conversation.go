package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// converse runs a mode: conversation test as AgentV 4.42's runConversationMode does: each turn
// appends its user message to the history, sends the (windowed) history to the target, appends
// the actual answer (never the expected one) and grades that turn; the test's own graders then
// grade the whole transcript, and the scores combine by the test's aggregation.
//
// Unlike AgentV, a turn that errors (target or grader) makes the test an error: AgentV scores
// it 0 and may still pass the test, but an error is never a pass here.
func converse(ctx context.Context, cfg Config, tr *result.TestResult, th result.Thresholds, tg target.Target, req *target.Request, ws Workspace) *result.TestResult {
	t := req.Test
	c := t.Conversation
	tr.Aggregation = c.Aggregation
	tr.Threshold = th.Pass
	history := append([]suite.Message(nil), t.Input...)
	all := &result.Output{}
	var scores []float64
	var errs []error
	var stopReason string
	for i, turn := range c.Turns {
		n := i + 1
		tu := &result.TurnResult{Turn: n, Input: turn.Input}
		tr.Turns = append(tr.Turns, tu)
		if stopReason == "" && ctx.Err() != nil {
			// An unfinished conversation has no result: the test is an error, not a low score.
			stopReason = "not run: " + ctxReason(ctx, cfg)
			errs = append(errs, fmt.Errorf("turn %d: %s: %w", n, stopReason, ctx.Err()))
		}
		if stopReason != "" {
			tu.Verdict, tu.Error = result.Skip, stopReason
			scores = append(scores, 0)
			continue
		}
		start := cfg.Now()
		history = append(history, suite.Message{Role: "user", Content: turn.Input})
		window := windowed(history, c.WindowSize)
		tt := turnTest(t, fmt.Sprintf("%s/turn-%d", t.ID, n), window, turn)
		treq := *req
		treq.Test, treq.Prompt = tt, turn.Input
		out, err := ask(ctx, cfg, tg, &treq, ws)
		if err != nil {
			tu.Error, tu.FailureStage, tu.Verdict = err.Error(), result.StageAgent, result.Error
			errs = append(errs, fmt.Errorf("turn %d: %w", n, err))
		} else {
			history = append(history, suite.Message{Role: "assistant", Content: out.Answer})
			tu.Output = out
			tu.Usage.Add(out.Usage)
			collect(all, out)
			gradeTurn(ctx, cfg, tu, req.Suite, tt, window, th)
			if tu.Verdict == result.Error {
				errs = append(errs, fmt.Errorf("turn %d: %w", n, errOr(graderErr(tu.Graders), tu.Error)))
			}
		}
		tu.DurationMS = cfg.Now().Sub(start).Milliseconds()
		tr.Usage.Add(tu.Usage)
		scores = append(scores, tu.Score)
		if c.OnTurnFailure == suite.OnTurnStop && tu.Verdict != result.Pass {
			stopReason = fmt.Sprintf("skipped: turn %d did not pass (on_turn_failure: stop)", n)
		}
		for _, g := range tu.Gates {
			tr.Gates = append(tr.Gates, fmt.Sprintf("turn %d: %s", n, g))
		}
	}
	tr.Output = finalOutput(all, history)
	if len(t.Graders) > 0 {
		s, gates, err := gradeTranscript(ctx, cfg, tr, req.Suite, t, history, th)
		tr.ConversationScore = &s
		scores = append(scores, s)
		tr.Gates = append(tr.Gates, gates...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	tr.Score = aggregate(scores, c.Aggregation)
	switch {
	case len(errs) > 0:
		tr.Err = errors.Join(errs...)
		tr.Error, tr.Score, tr.Verdict = tr.Err.Error(), 0, result.Error
		tr.FailureStage = result.StageEvaluator
		for _, tu := range tr.Turns {
			if tu.FailureStage == result.StageAgent {
				tr.FailureStage = result.StageAgent
				break
			}
		}
	case len(tr.Gates) > 0:
		tr.Verdict = result.Fail
	default:
		tr.Verdict = rubric.VerdictOf(tr.Score, th)
	}
	bound(cfg, req.Suite, t, tr.Output)
	for _, tu := range tr.Turns {
		bound(cfg, req.Suite, t, tu.Output)
	}
	return tr
}

// gradeTurn grades one answered turn. A turn with neither assertions nor expected_output scores
// 1 without a judge; one with only expected_output gets the implicit judge on the test's
// criteria, with that output as the reference answer (AgentV's default grader).
func gradeTurn(ctx context.Context, cfg Config, tu *result.TurnResult, s *suite.Suite, tt *suite.Test, window []suite.Message, th result.Thresholds) {
	if len(tt.Graders) == 0 {
		tu.Score, tu.Verdict = 1, result.Pass
		return
	}
	in := &grader.Input{Suite: s, Test: tt, Question: transcript(window), Output: tu.Output, Thresholds: th, User: cfg.User}
	sub := &result.TestResult{}
	sub.Graders = gradeAll(ctx, cfg, in, tt.Graders, &sub.Usage)
	rubric.Test(sub, th)
	tu.Graders, tu.Score, tu.Verdict, tu.Gates = sub.Graders, sub.Score, sub.Verdict, sub.Gates
	tu.Usage.Add(sub.Usage)
	if sub.Error != "" {
		tu.Error, tu.FailureStage = sub.Error, sub.FailureStage
	}
}

// gradeTranscript runs the test's own graders on the whole conversation (AgentV grades the
// "role: content" transcript as the answer, under the id <test>/conversation).
func gradeTranscript(ctx context.Context, cfg Config, tr *result.TestResult, s *suite.Suite, t *suite.Test, history []suite.Message, th result.Thresholds) (float64, []string, error) {
	ct := *t
	ct.ID, ct.Input, ct.ExpectedOutput, ct.Conversation = t.ID+"/conversation", history, nil, nil
	text := transcript(history)
	out := *tr.Output
	out.Answer = text
	in := &grader.Input{Suite: s, Test: &ct, Question: text, Output: &out, Thresholds: th, User: cfg.User}
	sub := &result.TestResult{}
	sub.Graders = gradeAll(ctx, cfg, in, t.Graders, &sub.Usage)
	rubric.Test(sub, th)
	tr.Graders = sub.Graders
	tr.Usage.Add(sub.Usage)
	var gates []string
	for _, g := range sub.Gates {
		gates = append(gates, "conversation: "+g)
	}
	if sub.Verdict == result.Error {
		return 0, gates, fmt.Errorf("conversation: %w", errOr(graderErr(sub.Graders), sub.Error))
	}
	return sub.Score, gates, nil
}

// turnTest is the test as one turn's target and graders see it: its own id, the windowed
// history as input, the turn's expected output and graders.
func turnTest(t *suite.Test, id string, input []suite.Message, turn *suite.Turn) *suite.Test {
	tt := *t
	tt.ID, tt.Input, tt.ExpectedOutput, tt.Graders, tt.Conversation = id, input, turn.ExpectedOutput, turn.Graders, nil
	if len(tt.Graders) == 0 && len(turn.ExpectedOutput) > 0 {
		tt.Graders = []*suite.Grader{{Name: "llm-grader", Type: "llm-grader", Weight: 1, Pos: turn.Pos}}
	}
	return &tt
}

// windowed keeps the system messages and the last size user/assistant pairs (AgentV's
// buildWindowedHistory); size 0 keeps everything.
func windowed(history []suite.Message, size int) []suite.Message {
	if size <= 0 {
		return history
	}
	var system, rest []suite.Message
	for _, m := range history {
		if m.Role == "system" {
			system = append(system, m)
		} else {
			rest = append(rest, m)
		}
	}
	if len(rest) > 2*size {
		rest = rest[len(rest)-2*size:]
	}
	return append(system, rest...)
}

// transcript renders messages as AgentV's "role: content" blocks.
func transcript(msgs []suite.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		role := m.Role
		if role == "" {
			role = "user"
		}
		parts[i] = role + ": " + m.Text()
	}
	return strings.Join(parts, "\n\n")
}

// aggregate combines turn scores by mean, min or max; no scores is 1, as in AgentV.
func aggregate(scores []float64, how string) float64 {
	if len(scores) == 0 {
		return 1
	}
	mean, lo, hi := meanMinMax(scores)
	switch how {
	case suite.AggregateMin:
		return lo
	case suite.AggregateMax:
		return hi
	}
	return mean
}

// collect adds one turn's output to the conversation's totals.
func collect(all, out *result.Output) {
	all.Answer = out.Answer
	all.ToolCalls = append(all.ToolCalls, out.ToolCalls...)
	all.Usage.Add(out.Usage)
	all.DurationMS += out.DurationMS
	if out.FileChanges != "" {
		all.FileChanges = out.FileChanges
	}
	if out.Workspace != "" {
		all.Workspace = out.Workspace
	}
}

// finalOutput is the conversation as the test's output: the last answer, and the whole history
// as its transcript.
func finalOutput(all *result.Output, history []suite.Message) *result.Output {
	for _, m := range history {
		all.Messages = append(all.Messages, result.Message{Role: m.Role, Content: m.Text()})
	}
	return all
}

// graderErr is the first error behind an errored grader, members included.
func graderErr(gs []*result.GraderResult) error {
	for _, g := range gs {
		if g == nil {
			continue
		}
		if g.Err != nil {
			return g.Err
		}
		if err := graderErr(g.Members); err != nil {
			return err
		}
	}
	return nil
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// ctxReason words why the conversation's context ended.
func ctxReason(ctx context.Context, cfg Config) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("the test timed out after %s", cfg.Timeout)
	}
	return "cancelled"
}

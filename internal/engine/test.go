package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// runTest runs one test: target, then graders, then scoring. Every failure lands in the result.
// trial is the 1-based trial number, the target's attempt ({ATTEMPT}, and part of a model
// target's cache key, so that trials are not answered from one cached reply).
func runTest(ctx context.Context, cfg Config, s *suite.Suite, t *suite.Test, trial int) *result.TestResult {
	tr := newResult(s, t)
	start := cfg.Now()
	tr.StartedAt = start
	defer func() { tr.DurationMS = cfg.Now().Sub(start).Milliseconds() }()
	th := rubric.ForTest(cfg.Thresholds, s.Threshold, t.Threshold)

	tr.Input = t.Question()
	tg, name, err := cfg.Target(s, t)
	tr.Target = name
	if err != nil {
		return failed(tr, th, result.StageSetup, err)
	}
	req := &target.Request{Suite: s, Test: t, Prompt: tr.Input, Attempt: trial, User: cfg.User}
	var ws Workspace
	if spec := workspaceOf(s, t); spec != nil {
		if cfg.Workspace == nil {
			return failed(tr, th, result.StageSetup, errors.New("this run cannot prepare workspaces"))
		}
		// Acquiring may wait for a shared workspace or run hooks with their own timeouts;
		// the test's time limit starts when it has somewhere to run.
		if ws, err = cfg.Workspace(ctx, s, t, spec); err != nil {
			return failed(tr, th, result.StageSetup, err)
		}
		// Kept for anything but a pass, so a failure can be inspected where it happened.
		defer func() { tr.Workspace, _ = ws.Close(cfg.KeepWorkspaces || tr.Verdict != result.Pass) }()
		req.Workspace = ws.Dir()
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if t.Conversation != nil {
		return converse(ctx, cfg, tr, th, tg, req, ws)
	}
	out, err := ask(ctx, cfg, tg, req, ws)
	if err != nil {
		return failed(tr, th, result.StageAgent, err)
	}
	tr.Output = out
	tr.Usage.Add(out.Usage)
	in := &grader.Input{Suite: s, Test: t, Question: tr.Input, Output: out, Thresholds: th, User: cfg.User}
	tr.Graders = gradeAll(ctx, cfg, in, t.Graders, &tr.Usage)
	rubric.Test(tr, th)
	bound(cfg, s, t, out)
	return tr
}

// bound cuts a graded output's diff to result.MaxFileChangesBytes: graders had the whole diff;
// the result, kept until the reports are written, does not need it. cfg.KeepDiff may store the
// whole diff, and the note says where.
func bound(cfg Config, s *suite.Suite, t *suite.Test, out *result.Output) {
	if out == nil || len(out.FileChanges) <= result.MaxFileChangesBytes {
		return
	}
	whole := ""
	if cfg.KeepDiff != nil {
		var err error
		if whole, err = cfg.KeepDiff(s.Name, t.ID, out.FileChanges); err != nil {
			whole = "it could not be kept: " + err.Error()
		}
	}
	out.BoundFileChanges(result.MaxFileChangesBytes, whole)
}

// ask runs the target once and adds the workspace diff when the target reported none.
func ask(ctx context.Context, cfg Config, tg target.Target, req *target.Request, ws Workspace) (*result.Output, error) {
	out, err := tg.Run(ctx, req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s: %w", cfg.Timeout, err)
		}
		return nil, err
	}
	if ws != nil && out.FileChanges == "" {
		if out.FileChanges, err = ws.Diff(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gradeAll runs specs in order and adds their judges' usage to usage.
func gradeAll(ctx context.Context, cfg Config, in *grader.Input, specs []*suite.Grader, usage *result.Usage) []*result.GraderResult {
	var out []*result.GraderResult
	for _, spec := range specs {
		out = append(out, grade(ctx, cfg, in, spec))
	}
	for _, g := range out {
		usage.Add(judgeShare(g.Usage))
	}
	return out
}

// grade builds and runs one grader; a grader that cannot be built is an error result.
func grade(ctx context.Context, cfg Config, in *grader.Input, spec *suite.Grader) *result.GraderResult {
	g, err := cfg.Grader(in.Suite, in.Test, spec)
	if err != nil {
		return &result.GraderResult{Name: spec.Name, Type: spec.Type, Weight: spec.Weight, Required: spec.Required,
			MinScore: spec.MinScore, Verdict: result.Error, Error: err.Error(), Err: err, File: spec.Pos.File, Line: spec.Pos.Line}
	}
	return g.Grade(ctx, in)
}

// judgeShare adds a grader's usage to a test total with the judge split recorded.
func judgeShare(u result.Usage) result.Usage {
	j := u
	j.Judge = nil
	u.Judge = &j
	return u
}

func failed(tr *result.TestResult, th result.Thresholds, stage string, err error) *result.TestResult {
	tr.Error, tr.Err, tr.FailureStage = err.Error(), err, stage
	rubric.Test(tr, th)
	return tr
}

// workspaceOf is the test's workspace, else the suite's.
func workspaceOf(s *suite.Suite, t *suite.Test) *suite.Workspace {
	if t.Workspace != nil {
		return t.Workspace
	}
	return s.Workspace
}

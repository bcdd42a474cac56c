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
func runTest(ctx context.Context, cfg Config, s *suite.Suite, t *suite.Test) *result.TestResult {
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
	req := &target.Request{Suite: s, Test: t, Prompt: tr.Input, Attempt: 1}
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
	out, err := tg.Run(ctx, req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s: %w", cfg.Timeout, err)
		}
		return failed(tr, th, result.StageAgent, err)
	}
	if ws != nil && out.FileChanges == "" {
		if out.FileChanges, err = ws.Diff(ctx); err != nil {
			return failed(tr, th, result.StageAgent, err)
		}
	}
	tr.Output = out
	tr.Usage.Add(out.Usage)
	in := &grader.Input{Suite: s, Test: t, Question: tr.Input, Output: out, Thresholds: th}
	for _, spec := range t.Graders {
		tr.Graders = append(tr.Graders, grade(ctx, cfg, in, spec))
	}
	for _, g := range tr.Graders {
		tr.Usage.Add(judgeShare(g.Usage))
	}
	rubric.Test(tr, th)
	// Graders had the whole diff; the result, kept until the reports are written, does not
	// need it.
	if len(out.FileChanges) > result.MaxFileChangesBytes {
		whole := ""
		if cfg.KeepDiff != nil {
			if whole, err = cfg.KeepDiff(s.Name, t.ID, out.FileChanges); err != nil {
				whole = "it could not be kept: " + err.Error()
			}
		}
		out.BoundFileChanges(result.MaxFileChangesBytes, whole)
	}
	return tr
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

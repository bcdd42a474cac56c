package action

import (
	"context"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Runner loads and runs the action's suites: *pipeline.Runner, the run assembly `evalgate
// run` uses too.
type Runner interface {
	// Load discovers and loads the suites under the root matching patterns (nil = the
	// defaults); a file that cannot be loaded is a suite result with its error.
	Load(patterns []string) ([]*suite.Suite, []*result.SuiteResult, error)
	// TargetsFiles lists the targets files the suites use.
	TargetsFiles(suites []*suite.Suite) []string
	// Run checks the job's configuration, runs its suites and returns the run.
	Run(ctx context.Context, job Job) (*result.Run, error)
}

var _ Runner = (*pipeline.Runner)(nil)

// Job is what one Run call runs, and the labels the run records as it is built.
type Job = pipeline.Job

// runConfig is the run the inputs ask for, on top of base: the root, environment, model
// options, log and scrubber the caller supplies.
func (in inputs) runConfig(base pipeline.Config) pipeline.Config {
	c := base
	c.Targets, c.Target, c.Judge, c.JudgeSamples = in.Targets, in.Target, in.Judge, in.JudgeSamples
	c.Env = &suite.EnvPolicy{Allow: in.EnvAllow}
	c.Workers, c.Trials, c.MaxTrials = in.Workers, in.Trials, in.MaxTrials
	c.BudgetUSD, c.RegressionAlpha = in.BudgetUSD, in.RegressionAlpha
	c.Thresholds = result.DefaultThresholds
	c.DiffDir = in.ReportDir
	if !filepath.IsAbs(c.DiffDir) {
		c.DiffDir = filepath.Join(c.Root, c.DiffDir)
	}
	return c
}

package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
)

// runOptions are the flags of `evalgate run`.
type runOptions struct {
	workers    int
	timeout    time.Duration
	threshold  float64
	borderline float64
	reportFlags
	keepWS bool
	shard  shardFlags
	sel    selection
	llm    llmFlags
	paths  []string
}

func newRunCmd(e env, st *cliState) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [PATH...] [flags]",
		Short: "Run eval suites, print the per-criterion table and gate on the result",
		Long: `Run the eval suites found under each PATH (default: the current directory), grade every
test, print the per-criterion table (or results.json with --format json) on stdout and exit
with the gate's verdict: 0 passed, 1 failed, 2 usage or configuration error, 130 interrupted.

A directory is searched for every eval file below it (` + strings.Join(suite.DefaultPatterns, ", ") + `);
a .yaml, .yml or .jsonl file named explicitly is loaded as it is. Progress goes to stderr.
Configuration mistakes (a missing targets file, an unknown target or judge, a missing API key)
are reported before any model is called.`,
		Example: `  evalgate run                                      # every suite under the current directory
  evalgate run evals/ --workers 8 --target gpt       # flags go anywhere
  evalgate run evals/x.eval.yaml --test-id 'refund-*' --test-id smoke
  evalgate run evals/ --tag slow --exclude-tag flaky
  evalgate run evals/ --format json --out report/    # results.json on stdout, reports in report/
  evalgate run evals/ --baseline base/results.json --fail-on-regression
  evalgate run evals/ --shard 2/4 --out shard-2/      # one shard of a matrix; see evalgate merge`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.paths = args
			if err := o.check(); err != nil {
				return err
			}
			return runCmd(cmd.Context(), e, o)
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.sel.register(fs)
	fs.IntVar(&o.workers, "workers", engine.DefaultWorkers, "tests run at once")
	fs.DurationVar(&o.timeout, "timeout", engine.DefaultTimeout, "time limit per test (target and graders)")
	fs.Float64Var(&o.threshold, "threshold", 0, "pass threshold 0-1 (default 0.8, or the suite's execution.threshold)")
	fs.Float64Var(&o.borderline, "borderline", result.DefaultThresholds.Borderline, "borderline threshold 0-1 (never above the pass threshold)")
	o.register(fs)
	fs.BoolVar(&o.keepWS, "keep-workspaces", false, "keep every test's workspace (by default only those of tests that did not pass)")
	o.shard.register(fs)
	o.llm.register(fs)
	return cmd
}

// check validates flag values that their types cannot.
func (o *runOptions) check() error {
	switch {
	case o.workers < 1:
		return usageErr("--workers must be at least 1")
	case o.timeout < 0:
		return usageErr("--timeout must not be negative")
	case o.threshold < 0 || o.threshold > 1:
		return usageErr("--threshold must be between 0 and 1")
	case o.borderline < 0 || o.borderline > 1:
		return usageErr("--borderline must be between 0 and 1")
	case o.shard.spec != "" && o.out == "":
		return usageErr("--shard needs --out: a shard writes its partial result there for evalgate merge")
	case o.shard.spec != "" && o.baseline != "":
		return usageErr("--shard decides no gate: pass --baseline to evalgate merge")
	}
	if _, err := o.shard.sharding(""); err != nil {
		return err
	}
	if err := o.reportFlags.check(); err != nil {
		return err
	}
	if err := o.sel.check(); err != nil {
		return err
	}
	return o.llm.check()
}

func runCmd(ctx context.Context, e env, o *runOptions) error {
	if o.shard.spec != "" {
		// First of all: a shard that fails from here on leaves no earlier result behind.
		if err := pipeline.ClearPartial(o.out); err != nil {
			return err
		}
		if err := shard.CheckKey(e.getenv(shard.KeyEnv)); err != nil {
			return usageErr("%w", err)
		}
	}
	// The log (e.scrub scrubs stderr) is scrubbed from the start: a declared variable's value
	// may sit in a test id that a diagnostic, a progress line or an error names.
	scrub := e.scrubber()
	scrub.Add(pipeline.JobSecrets(e.environ, e.getenv, o.sel.allowEnv)...)
	root, l, suites, err := o.load(ctx, e)
	if err != nil {
		return err
	}
	cfg := o.config(e, root, scrub)
	if cfg.LLM, err = o.llm.options(ctx, root, e); err != nil {
		return err
	}
	e.iso.Announce(e.stderr)
	job := pipeline.Job{Suites: suites, LoadErrors: l.LoadErrors}
	sh, _ := o.shard.sharding(o.salt())
	var split *shard.Plan
	if sh != nil {
		if split, err = sh.Part(&job, o.sel.target != "", o.llm.trials); err != nil {
			return usageErr("%w", err)
		}
		fmt.Fprintf(e.stderr, "evalgate: shard %s of the selection (plan %s, balanced by %s)\n", sh.Spec, split.ShortFingerprint(), split.Balance)
	}
	// The baseline is read before the run: adaptive trials compare each test with it.
	if job.Baseline, err = o.loadBaseline(); err != nil {
		return err
	}
	run, runErr := pipeline.New(cfg).Run(ctx, job)
	if run == nil {
		return runErr
	}
	if sh != nil {
		return finishShard(ctx, e, o, root, run, runErr, shard.Manifest{Shard: sh.Spec, Plan: split}, scrub)
	}
	gateErr := o.report(e, root, run, scrub)
	if gateErr != nil && !errors.Is(gateErr, gateFailed) {
		return gateErr
	}
	printKept(e, run)
	if runErr != nil {
		return runErr
	}
	return gateErr
}

// load finds the repository root, loads the eval files under the paths and applies the
// selection filters.
func (o *runOptions) load(ctx context.Context, e env) (string, *pipeline.Loaded, []*suite.Suite, error) {
	root, err := absRoot(ctx, o.sel.root, o.paths)
	if err != nil {
		return "", nil, nil, err
	}
	if o.llm.cacheDir != "" {
		// --cache-dir is relative to where the user typed it, as every path flag.
		if o.llm.cacheDir, err = filepath.Abs(o.llm.cacheDir); err != nil {
			return "", nil, nil, usageErr("--cache-dir: %w", err)
		}
	}
	l, err := pipeline.New(o.config(e, root, nil)).Search(o.paths)
	if err != nil {
		return "", nil, nil, usageErr("%w", err)
	}
	if len(l.Suites) == 0 {
		return "", nil, nil, usageErr("none of the %d eval files could be loaded", len(l.Files))
	}
	suites, err := o.sel.filter.Apply(l.Suites)
	if err != nil {
		return "", nil, nil, err
	}
	return root, l, suites, nil
}

// config is how the flags load, wire and run the selected tests (without the model
// options, which need the loaded suites' root).
func (o *runOptions) config(e env, root string, scrub *redact.Redactor) pipeline.Config {
	c := pipeline.Config{Config: resolve.Config{Root: root, Targets: o.sel.targets, Target: o.sel.target, Judge: o.sel.judge, JudgeSamples: o.llm.judgeSamples,
		Getenv: e.getenv, Env: &suite.EnvPolicy{Allow: o.sel.allowEnv}, Log: e.stderr}, Scrub: scrub, User: e.iso.User,
		Workers: o.workers, Timeout: o.timeout, Thresholds: pipeline.Thresholds(o.threshold, o.borderline), BudgetUSD: o.llm.budgetUSD, Trials: o.llm.trials, MaxTrials: o.llm.maxTrials,
		RegressionAlpha: o.alpha, KeepWorkspaces: o.keepWS, DiffDir: o.out}
	if scrub != nil {
		c.OnSecrets = func(v []string) { scrub.Add(v...) }
	}
	return c
}

// absRoot is the repository root: --root, else the git work tree of the first path.
func absRoot(ctx context.Context, flag string, paths []string) (string, error) {
	root, err := pipeline.Root(ctx, flag, paths)
	if err != nil {
		return "", usageErr("--root: %w", err)
	}
	return root, nil
}

// printKept says where the kept workspaces are, so a failed agent run can be inspected.
func printKept(e env, run *result.Run) {
	for _, s := range run.Suites {
		for _, t := range s.Tests {
			if t.Workspace != "" {
				fmt.Fprintf(e.stderr, "evalgate: kept the workspace of %s/%s: %s\n", s.Name, safetext.OneLine(t.Label()), t.Workspace)
			}
		}
	}
}

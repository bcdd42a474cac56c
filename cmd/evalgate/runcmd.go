package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/reports"
)

// runOptions are the flags of `evalgate run`.
type runOptions struct {
	workers    int
	timeout    time.Duration
	threshold  float64
	borderline float64
	failOn     string
	out        string
	format     string
	baseline   string
	regress    bool
	keepWS     bool
	sel        selection
	llm        llmFlags
	paths      []string
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
  evalgate run evals/ --baseline base/results.json --fail-on-regression`,
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
	fs.StringVar(&o.failOn, "fail-on", "fail", "what fails the gate: fail, borderline or never")
	fs.StringVar(&o.format, "format", "table", "stdout format: table or json")
	fs.StringVar(&o.out, "out", "", "write report files (results.json, comment.md, junit.xml, …) to this directory")
	fs.StringVar(&o.baseline, "baseline", "", "results.json of a base run: show per-test and per-criterion deltas")
	fs.BoolVar(&o.regress, "fail-on-regression", false, "with --baseline: fail the gate when a test or criterion regressed")
	fs.BoolVar(&o.keepWS, "keep-workspaces", false, "keep every test's workspace (by default only those of tests that did not pass)")
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
	case o.regress && o.baseline == "":
		return usageErr("--fail-on-regression needs --baseline")
	case o.format != "table" && o.format != "json":
		return usageErr("--format must be table or json, not %q", o.format)
	}
	if _, err := gate.ParseFailOn(o.failOn); err != nil {
		return usageErr("--fail-on: %w", err)
	}
	if err := o.sel.check(); err != nil {
		return err
	}
	return o.llm.check()
}

func runCmd(ctx context.Context, e env, o *runOptions) error {
	root, err := absRoot(ctx, o.sel.root, o.paths)
	if err != nil {
		return err
	}
	if o.llm.cacheDir != "" {
		// --cache-dir is relative to where the user typed it, as every path flag.
		if o.llm.cacheDir, err = filepath.Abs(o.llm.cacheDir); err != nil {
			return usageErr("--cache-dir: %w", err)
		}
	}
	l, err := loadSuites(o.paths, root, e.getenv, e.stderr)
	if err != nil {
		return err
	}
	if len(l.suites) == 0 {
		return usageErr("none of the %d eval files could be loaded", len(l.files))
	}
	suites, err := o.sel.apply(l.suites)
	if err != nil {
		return err
	}
	th := result.DefaultThresholds
	if o.threshold > 0 {
		th.Pass = o.threshold
	}
	th.Borderline = min(o.borderline, th.Pass)
	llmOpts, err := o.llm.options(ctx, root, e)
	if err != nil {
		return err
	}
	scrub := redact.New(credentials(e)...)
	w := newWiring(wireConfig{root: root, targets: o.sel.targets, target: o.sel.target, judge: o.sel.judge,
		judgeSamples: o.llm.judgeSamples, getenv: e.getenv, llm: llmOpts, log: e.stderr,
		onSecrets: func(v []string) { scrub.Add(v...) }})
	plan, err := w.preflight(suites)
	if err != nil {
		return err
	}
	printStart(e.stderr, suites, o.workers, o.llm.trials, plan)
	var keepDiff func(suite, test, diff string) (string, error)
	if o.out != "" {
		keepDiff = reports.DiffFiles(o.out, root, scrub)
	}
	run, runErr := engine.Run(ctx, suites, engine.Config{
		KeepDiff:       keepDiff,
		BudgetUSD:      o.llm.budgetUSD,
		Trials:         o.llm.trials,
		KeepWorkspaces: o.keepWS,
		Workers:        o.workers,
		Timeout:        o.timeout,
		Thresholds:     th,
		Target:         w.target,
		SingleTarget:   w.targetFlag != "",
		Grader:         w.grader,
		Workspace:      w.workspace,
		Progress:       e.stderr,
		LoadErrors:     l.loadErrors,
	})
	// after_all hooks run even when the run was interrupted: they clean up what before_all
	// started.
	w.closeWorkspaces(context.WithoutCancel(ctx))
	cmp, err := baseline(o.baseline, run)
	if err != nil {
		return err
	}
	failOn, _ := gate.ParseFailOn(o.failOn)
	decision := gate.Policy{FailOn: failOn, FailOnRegression: o.regress}.Decide(run, cmp.Regressions())
	if err := report(e, o, root, run, cmp, decision, scrub); err != nil {
		return err
	}
	printKept(e, run)
	if runErr != nil {
		return runErr
	}
	if decision.Failed() {
		if decision.Reason != "" {
			fmt.Fprintf(e.stderr, "evalgate: %s (%s)\n", decision.Reason, o.baseline)
		}
		return gateFailed
	}
	return nil
}

// absRoot is the repository root: --root, else the git work tree of the first path.
func absRoot(ctx context.Context, flag string, paths []string) (string, error) {
	root := flag
	if root == "" {
		first := "."
		if len(paths) > 0 {
			first = paths[0]
		}
		root = repoRoot(ctx, first)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", usageErr("--root: %w", err)
	}
	return abs, nil
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// runOptions are the flags of `evalgate run`.
type runOptions struct {
	workers    int
	timeout    time.Duration
	target     string
	judge      string
	targets    string
	threshold  float64
	borderline float64
	failOn     string
	out        string
	format     string
	root       string
	baseline   string
	regress    bool
	keepWS     bool
	llm        llmFlags
	paths      []string
}

func parseRun(args []string, e env) (*runOptions, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.IntVar(&o.workers, "workers", engine.DefaultWorkers, "tests run at once")
	fs.DurationVar(&o.timeout, "timeout", engine.DefaultTimeout, "time limit per test (target and graders)")
	fs.StringVar(&o.target, "target", "", "run every test against this target (overrides execution.target)")
	fs.StringVar(&o.judge, "judge", "", "grade with this judge target (overrides grader_target)")
	fs.StringVar(&o.targets, "targets", "", "targets.yaml to use (default: found walking up from each eval file)")
	fs.Float64Var(&o.threshold, "threshold", 0, "pass threshold 0–1 (default 0.8, or the suite's execution.threshold)")
	fs.Float64Var(&o.borderline, "borderline", result.DefaultThresholds.Borderline, "borderline threshold 0–1 (never above the pass threshold)")
	fs.StringVar(&o.failOn, "fail-on", "fail", "what fails the gate: fail, borderline or never")
	fs.StringVar(&o.out, "out", "", "write report files (results.json, comment.md, …) to this directory")
	fs.StringVar(&o.format, "format", "table", "stdout format: table or json")
	fs.StringVar(&o.baseline, "baseline", "", "results.json of a base run: show per-test and per-criterion deltas")
	fs.BoolVar(&o.regress, "fail-on-regression", false, "with --baseline: fail the gate when a test or criterion regressed")
	fs.StringVar(&o.root, "root", "", "repository root (default: the git work tree of the first path)")
	fs.BoolVar(&o.keepWS, "keep-workspaces", false, "keep every test's workspace (by default only those of tests that did not pass)")
	o.llm.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.paths = fs.Args()
	switch {
	case o.workers < 1:
		return nil, usageErr("--workers must be at least 1")
	case o.threshold < 0 || o.threshold > 1:
		return nil, usageErr("--threshold must be between 0 and 1")
	case o.borderline < 0 || o.borderline > 1:
		return nil, usageErr("--borderline must be between 0 and 1")
	case o.regress && o.baseline == "":
		return nil, usageErr("--fail-on-regression needs --baseline")
	case o.format != "table" && o.format != "json":
		return nil, usageErr("--format must be table or json, not %q", o.format)
	}
	if err := o.llm.check(); err != nil {
		return nil, err
	}
	if _, err := reports.ParseFailOn(o.failOn); err != nil {
		return nil, usageErr("--fail-on: %w", err)
	}
	return o, nil
}

func runCmd(ctx context.Context, e env, args []string) error {
	o, err := parseRun(args, e)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: exitUsage} // the flag package already printed it
	}
	if o.root == "" {
		first := "."
		if len(o.paths) > 0 {
			first = o.paths[0]
		}
		o.root = repoRoot(ctx, first)
	}
	if o.root, err = filepath.Abs(o.root); err != nil {
		return usageErr("--root: %w", err)
	}
	l, err := loadSuites(o.paths, o.root, e.getenv, e.stderr)
	if err != nil {
		return err
	}
	if len(l.suites) == 0 {
		return usageErr("none of the %d eval files could be loaded", len(l.files))
	}
	th := result.DefaultThresholds
	if o.threshold > 0 {
		th.Pass = o.threshold
	}
	th.Borderline = min(o.borderline, th.Pass)
	llmOpts, err := o.llm.options(o.root, e)
	if err != nil {
		return err
	}
	w := newWiring(wireConfig{root: o.root, targets: o.targets, target: o.target, judge: o.judge,
		judgeSamples: o.llm.judgeSamples, getenv: e.getenv, llm: llmOpts, log: e.stderr})
	run, runErr := engine.Run(ctx, l.suites, engine.Config{
		BudgetUSD:      o.llm.budgetUSD,
		KeepWorkspaces: o.keepWS,
		Workers:        o.workers,
		Timeout:        o.timeout,
		Thresholds:     th,
		Target:         w.target,
		Grader:         w.grader,
		Workspace:      w.workspace,
		Progress:       e.stderr,
		LoadErrors:     l.loadErrors,
	})
	// after_all hooks run even when the run was interrupted: they clean up what before_all
	// started.
	w.closeWorkspaces(context.WithoutCancel(ctx))
	failOn, _ := reports.ParseFailOn(o.failOn)
	cmp, err := report(e, o, run, failOn)
	if err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if reports.Conclusion(run, failOn) == "failure" {
		return gateFailed
	}
	if o.regress && cmp != nil && cmp.Regressions() > 0 {
		fmt.Fprintf(e.stderr, "evalgate: %d regression(s) against %s\n", cmp.Regressions(), o.baseline)
		return gateFailed
	}
	return nil
}

// report prints the run and writes the report files.
func report(e env, o *runOptions, run *result.Run, failOn reports.FailOn) (*reports.Comparison, error) {
	cmp, err := baseline(o.baseline, run)
	if err != nil {
		return nil, err
	}
	if o.format == "json" {
		err = reports.WriteResults(e.stdout, run)
	} else {
		err = reports.Table(e.stdout, run, reports.TableOptions{FailOn: failOn, Baseline: cmp})
	}
	if err != nil {
		return nil, fmt.Errorf("print results: %w", err)
	}
	if o.out == "" {
		return cmp, nil
	}
	opts := reports.FilesOptions{
		Comment: reports.CommentOptions{FailOn: failOn, Baseline: cmp},
		Summary: reports.SummaryOptions{FailOn: failOn, Baseline: cmp},
		Check:   reports.CheckOptions{FailOn: failOn, Baseline: cmp, RepoRoot: o.root},
		JUnit:   reports.JUnitOptions{FailOn: failOn},
	}
	if err := reports.WriteAll(o.out, run, opts); err != nil {
		return nil, fmt.Errorf("write reports to %s: %w", o.out, err)
	}
	return cmp, nil
}

// baseline reads a base run's results.json and compares the run with it ("" = no comparison).
func baseline(path string, run *result.Run) (*reports.Comparison, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("--baseline: %w", err)
	}
	defer f.Close()
	base, err := reports.ReadResults(f)
	if err != nil {
		return nil, usageErr("--baseline %s: %w", path, err)
	}
	return reports.Compare(base, run, reports.DefaultNoise), nil
}

package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/reports"
)

// gateFlags are the flags of what fails the gate, which run, merge and report share.
type gateFlags struct {
	failOn, baseline string
	regress          bool
	alpha            float64
	// base is the --baseline run once read (loadBaseline): a run reads it before its tests,
	// for adaptive trials, and reports with the same one.
	base *result.Run
}

// check validates the values their types cannot.
func (f *gateFlags) check() error {
	switch {
	case f.regress && f.baseline == "":
		return usageErr("--fail-on-regression needs --baseline")
	case !(f.alpha > 0 && f.alpha < 1):
		return usageErr("--regression-alpha must be between 0 and 1 (exclusive), not %v", f.alpha)
	}
	if _, err := gate.ParseFailOn(f.failOn); err != nil {
		return usageErr("--fail-on: %w", err)
	}
	return nil
}

// policy is the gate policy the flags ask for (checked by check).
func (f *gateFlags) policy() gate.Policy {
	failOn, _ := gate.ParseFailOn(f.failOn)
	return gate.Policy{FailOn: failOn, FailOnRegression: f.regress, RegressionAlpha: f.alpha}
}

// loadBaseline reads --baseline once ("" = none).
func (f *gateFlags) loadBaseline() (*result.Run, error) {
	if f.base != nil || f.baseline == "" {
		return f.base, nil
	}
	base, err := pipeline.ReadResults(f.baseline)
	if err != nil {
		return nil, usageErr("--baseline: %w", err)
	}
	f.base = base
	return base, nil
}

// reportFlags are the flags run and merge share: what is printed and written, and what fails
// the gate.
type reportFlags struct {
	gateFlags
	out, format string
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.failOn, "fail-on", "fail", "what fails the gate: fail, borderline or never")
	fs.StringVar(&f.format, "format", "table", "stdout format: table or json")
	fs.StringVar(&f.out, "out", "", "write report files (results.json, comment.md, junit.xml, …) to this directory")
	fs.StringVar(&f.baseline, "baseline", "", "results.json of a base run: show per-test and per-criterion deltas")
	fs.BoolVar(&f.regress, "fail-on-regression", false, "with --baseline: fail the gate when a test (or the run as a whole) regressed significantly; criteria are shown, never gated")
	fs.Float64Var(&f.alpha, "regression-alpha", 0.05, "with --baseline: family-wise level of the comparison (the chance an unchanged run fails --fail-on-regression)")
}

// check validates the values their types cannot.
func (f *reportFlags) check() error {
	if f.format != "table" && f.format != "json" {
		return usageErr("--format must be table or json, not %q", f.format)
	}
	return f.gateFlags.check()
}

// report prints the run, writes the report files and returns the gate's verdict: nil when it
// passed, gateFailed when it failed. The gate is decided once, and every report shows it.
func (f *reportFlags) report(e env, root string, run *result.Run, scrub *redact.Redactor) error {
	base, err := f.loadBaseline()
	if err != nil {
		return err
	}
	c := pipeline.Conclude(run, base, f.policy())
	decision := c.Decision
	if err := f.print(e, c.Report, run, decision, scrub); err != nil {
		return err
	}
	if f.out != "" {
		if err := c.WriteAll(f.out, root, scrub); err != nil {
			return fmt.Errorf("write reports to %s: %w", f.out, err)
		}
	}
	if decision.Failed() {
		if decision.Reason != "" {
			fmt.Fprintf(e.stderr, "evalgate: %s (%s)\n", decision.Reason, f.baseline)
		}
		return gateFailed
	}
	return nil
}

// print writes the table, or results.json with --format json, to stdout.
func (f *reportFlags) print(e env, rep *reports.Report, run *result.Run, decision gate.Decision, scrub *redact.Redactor) error {
	// Credentials an agent echoed stay out of CI logs and report files here too.
	write := func(w io.Writer, render func(io.Writer) error) error {
		out := scrub.Writer(w)
		err := render(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	}
	var err error
	switch f.format {
	case "json":
		err = write(e.stdout, func(w io.Writer) error { return reports.WriteResults(w, run) })
	default:
		width, isTerm := terminal(e)
		table := func(w io.Writer) error {
			return rep.Table(w, reports.TableOptions{Gate: decision, Width: width, Color: isTerm && e.getenv("NO_COLOR") == ""})
		}
		if !actions(e) {
			err = write(e.stdout, table)
			break
		}
		// The table carries test ids, reasoning and agent text: under Actions it goes out
		// between stop-commands markers, as the action's own table does.
		safetext.Stopped(e.stdout, func(w io.Writer) { err = write(w, table) })
	}
	if err != nil {
		return fmt.Errorf("print results: %w", err)
	}
	return nil
}

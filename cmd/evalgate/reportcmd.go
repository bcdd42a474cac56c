package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/reports"
)

// reportCmdOptions are the flags of `evalgate report`.
type reportCmdOptions struct {
	gateFlags
	out, results string
}

func newReportCmd(e env, st *cliState) *cobra.Command {
	o := &reportCmdOptions{}
	cmd := &cobra.Command{
		Use:   "report RESULTS.json [--out DIR]",
		Short: "Render every report (report.html, comment.md, junit.xml, …) again from a results.json",
		Long: `Render every report file of a finished run again from its results.json, with this
evalgate's renderers: an artifact from an older run can then be read as today's report.html.

The files go to --out (default: the directory holding RESULTS.json, whose results.json is
rewritten in the current schema). results.json does not record the run's gate policy: the
gate shown is --fail-on's (default fail), against --baseline when one is given.`,
		Example: `  evalgate report artifact/results.json                 # re-render in place
  evalgate report artifact/results.json --out html/ --baseline main/results.json
  evalgate view html/`,
		Args: cobra.ExactArgs(1),
		RunE: runE(st, func(_ *cobra.Command, args []string) error {
			o.results = args[0]
			if err := o.check(); err != nil {
				return err
			}
			return reportCmd(e, o)
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&o.out, "out", "", "directory to write the reports to (default: the directory of RESULTS.json)")
	fs.StringVar(&o.baseline, "baseline", "", "results.json of a base run: show per-test and per-criterion deltas")
	fs.StringVar(&o.failOn, "fail-on", "fail", "the gate the reports show: fail, borderline or never")
	fs.BoolVar(&o.regress, "fail-on-regression", false, "with --baseline: the gate fails on a significant regression")
	fs.Float64Var(&o.alpha, "regression-alpha", 0.05, "with --baseline: family-wise level of the comparison")
	return cmd
}

func reportCmd(e env, o *reportCmdOptions) error {
	run, err := readResultsArg(o.results)
	if err != nil {
		return err
	}
	base, err := o.loadBaseline()
	if err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = filepath.Dir(o.results)
	}
	c := pipeline.Conclude(run, base, o.policy())
	if err := c.WriteAll(out, "", e.scrubber()); err != nil {
		return fmt.Errorf("write reports to %s: %w", out, err)
	}
	fmt.Fprintf(e.stdout, "%s\n", filepath.Join(out, reports.FileHTML))
	return nil
}

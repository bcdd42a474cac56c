package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/reports"
)

// compareOptions are the flags of `evalgate compare`.
type compareOptions struct {
	format           string
	alpha            float64
	threshold        float64
	failOnRegression bool
}

func newCompareCmd(e env, st *cliState) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BASE HEAD",
		Short: "Compare two runs (results.json or AgentV index.jsonl) with the gate's statistics",
		Long: `Compare a head run against a base run, test by test, with the statistics the gate uses for
--baseline: one-sided exact tests per test (Boschloo for pass/fail trials, permutation for
scores), a pooled stratified test over all tests, and weighted Holm at --regression-alpha
(docs/regressions.md).

BASE and HEAD are each a results.json (what "evalgate run --out" writes), an index.jsonl
(AgentV's run index, as "agentv eval" or evalgate writes it), or a directory holding one of them
(results.json first). Tests pair by suite and test id (id@target in a matrix).

--threshold is AgentV's compare threshold: a score change below it that is not significant is
shown as unchanged, and it splits AgentV's wins, losses and ties. It never makes a regression.

Exit codes: 0 compared (and, with --fail-on-regression, no significant regression), 1 a
significant regression with --fail-on-regression, 2 usage error or an unreadable input.`,
		Example: `  evalgate compare base/results.json head/results.json
  evalgate compare .agentv/results/runs/2026-01-01/index.jsonl out/ --format markdown
  evalgate compare base/ head/ --fail-on-regression --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("compare needs two runs, BASE and HEAD (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, o, args[0], args[1])
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "table", "output format: "+strings.Join(reports.ComparisonFormats, ", "))
	f.Float64Var(&o.alpha, "regression-alpha", compare.DefaultAlpha, "family-wise level of the comparison (the chance an unchanged run is reported with a regression)")
	f.Float64VarP(&o.threshold, "threshold", "t", compare.DefaultNoise, "score change below which a change that is not significant is shown as unchanged (AgentV's compare threshold)")
	f.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit 1 when the comparison finds a significant regression")
	return cmd
}

func runCompare(cmd *cobra.Command, o *compareOptions, basePath, headPath string) error {
	if !slices.Contains(reports.ComparisonFormats, o.format) {
		return usageErr("--format must be one of %s, not %q", strings.Join(reports.ComparisonFormats, ", "), o.format)
	}
	if !(o.alpha > 0 && o.alpha < 1) {
		return usageErr("--regression-alpha must be between 0 and 1 (exclusive), not %v", o.alpha)
	}
	if !(o.threshold > 0 && o.threshold < 1) {
		return usageErr("--threshold must be between 0 and 1 (exclusive), not %v", o.threshold)
	}
	base, basePath, err := pipeline.ReadRun(basePath)
	if err != nil {
		return usageErr("%v", err)
	}
	head, headPath, err := pipeline.ReadRun(headPath)
	if err != nil {
		return usageErr("%v", err)
	}
	c := compare.Compare(base, head, compare.Options{Alpha: o.alpha, Noise: o.threshold})
	info := reports.ComparisonInfo{Base: basePath, Head: headPath}
	if err := reports.WriteComparison(cmd.OutOrStdout(), c, info, o.format); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if o.failOnRegression && pipeline.Regressed(c) {
		return gateFailed
	}
	return nil
}

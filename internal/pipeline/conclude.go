package pipeline

import (
	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// Concluded is a finished run as every renderer and publisher shows it: compared with its
// baseline, gated once, and viewed once. Nothing changes the run from here on.
type Concluded struct {
	Run *result.Run
	// Comparison is nil without a baseline.
	Comparison *compare.Comparison
	Decision   gate.Decision
	// Report is the one view the table, the comment, the check run, the summary and the
	// report files are rendered from.
	Report *reports.Report
}

// Conclude compares run with base (nil: no baseline) at the policy's family-wise level,
// decides the gate by policy and builds the report view. Both drivers call it, so `evalgate
// run`, `evalgate merge` and the action reach the same conclusion from the same run.
func Conclude(run, base *result.Run, policy gate.Policy) *Concluded {
	var cmp *compare.Comparison
	if base != nil {
		cmp = compare.Compare(base, run, compare.Options{Alpha: policy.RegressionAlpha})
	}
	d := policy.DecideRegressions(run, gate.Regressions{Tests: cmp.Regressions(), Pooled: cmp.PooledRegression()})
	return &Concluded{Run: run, Comparison: cmp, Decision: d, Report: reports.NewReport(run, cmp)}
}

// WriteAll writes every report file into dir, each showing the one decision; paths are made
// relative to root ("" when there is no checkout, as for `evalgate report`).
func (c *Concluded) WriteAll(dir, root string, scrub *redact.Redactor) error {
	d := c.Decision
	return c.Report.WriteAll(dir, reports.FilesOptions{
		Comment: reports.CommentOptions{Gate: d},
		Summary: reports.SummaryOptions{Gate: d},
		Check:   reports.CheckOptions{Gate: d, RepoRoot: root},
		JUnit:   reports.JUnitOptions{Gate: d},
		Root:    root,
		Scrub:   scrub,
	})
}

// Regressed reports whether c found a significant regression — a test, or the run as a whole
// in the pooled test — which is what fail_on_regression fails the gate on (evalgate compare's
// --fail-on-regression exits 1 on it).
func Regressed(c *compare.Comparison) bool {
	return c.Regressions() > 0 || c.PooledRegression()
}

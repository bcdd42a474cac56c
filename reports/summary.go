package reports

import (
	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// SummaryOptions shape the step summary ($GITHUB_STEP_SUMMARY).
type SummaryOptions struct {
	// Title names the run in the headline (default "evalgate").
	Title string
	// CheckURL and RunURL link the check run and the workflow run (http(s) only).
	CheckURL, RunURL string
	// ReportHint says where the machine-readable report is (e.g. the artifact name).
	ReportHint string
	// Baseline, when set, adds Δ columns and the regressions list.
	Baseline *compare.Comparison
	// Gate is the gate's decision the report shows (zero: the default policy's, on the tests
	// alone).
	Gate gate.Decision
	// MaxBytes is the size budget (default MaxStepSummaryBytes).
	MaxBytes int
}

// StepSummary renders the job's step summary: the comment's tables with a far larger budget,
// so it is the full report the comment points to (passing tests' reasoning included).
func StepSummary(run *result.Run, opts SummaryOptions) string {
	return NewReport(run, opts.Baseline).StepSummary(opts)
}

// StepSummary renders the step summary from r's view (see the package-level StepSummary);
// opts.Baseline is ignored: r was compared when it was made.
func (r *Report) StepSummary(opts SummaryOptions) string {
	m := newMarkdown(r.v, mdConfig{
		title:       opts.Title,
		head:        true,
		crits:       true,
		tables:      true,
		details:     true,
		passDetails: true,
		answerBytes: 4000,
		reasonBytes: 4000,
		checkURL:    opts.CheckURL,
		runURL:      opts.RunURL,
		reportHint:  orDefault(opts.ReportHint, "results.json in the report directory"),
		footer:      true,
		gate:        opts.Gate,
		maxBytes:    orLimit(opts.MaxBytes, MaxStepSummaryBytes),
	})
	return fit(m)
}

package reports

import "github.com/evalgate/evalgate/internal/gate"

// SummaryOptions shape the step summary ($GITHUB_STEP_SUMMARY).
type SummaryOptions struct {
	// CheckURL and RunURL link the check run and the workflow run (http(s) only).
	CheckURL, RunURL string
	// ReportHint says where the machine-readable report is (e.g. the artifact name).
	ReportHint string
	// Gate is the gate's decision the report shows (zero: the default policy's, on the tests
	// alone).
	Gate gate.Decision
	// MaxBytes is the size budget (default 1 MiB less a 64 KiB margin).
	MaxBytes int
}

// StepSummary renders the job's step summary: the comment's tables with a far larger budget,
// so it is the full report the comment points to (passing tests' reasoning included).
func (r *Report) StepSummary(opts SummaryOptions) string {
	m := newMarkdown(r.v, mdConfig{
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
		maxBytes:    orLimit(opts.MaxBytes, maxStepSummaryBytes),
	})
	return fit(m)
}

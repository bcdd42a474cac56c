package reports

import (
	"github.com/evalgate/evalgate/internal/gate"
)

// defaultRerunCommand is the slash command the comment's footer suggests.
const defaultRerunCommand = "/evalgate rerun"

// CommentOptions shape the sticky PR comment.
type CommentOptions struct {
	// Marker is the hidden HTML comment the sticky-comment finder matches, e.g.
	// "<!-- evalgate:comment key=evals/gate -->". It is put on the very first line; a value that
	// is not one well-formed comment is wrapped into one.
	Marker string
	// CheckURL and RunURL link the check run and the workflow run (http(s) only; others are
	// left out).
	CheckURL, RunURL string
	// ReportHint says where the full report is ("the job summary", "the evalgate-report
	// artifact"); it is quoted whenever something was left out.
	ReportHint string
	// RerunCommand is the slash command suggested in the footer (default "/evalgate rerun").
	RerunCommand string
	// Gate is the gate's decision the report shows (zero: the default policy's, on the tests
	// alone).
	Gate gate.Decision
	// MaxBytes is the size budget (default MaxCommentBytes).
	MaxBytes int
}

// Comment renders the sticky PR comment: a headline verdict, counts, score and head SHA, the
// gate and links, the comparison with the baseline r was made with, the criteria across the
// run with score bars, a table of tests × criteria per suite (failed and gated first), each
// non-passing test's reasoning, failed assertions and answer in <details>, and the rerun hint.
// It never exceeds MaxBytes: see fit for what goes first when a run is large.
func (r *Report) Comment(opts CommentOptions) string {
	rerun := opts.RerunCommand
	if rerun == "" {
		rerun = defaultRerunCommand
	}
	m := newMarkdown(r.v, mdConfig{
		marker:      normalizeMarker(opts.Marker),
		head:        true,
		crits:       true,
		tables:      true,
		details:     true,
		answerBytes: 800,
		reasonBytes: 1500,
		checkURL:    opts.CheckURL,
		runURL:      opts.RunURL,
		reportHint:  opts.ReportHint,
		rerun:       rerun,
		footer:      true,
		gate:        opts.Gate,
		maxBytes:    orLimit(opts.MaxBytes, MaxCommentBytes),
	})
	return fit(m)
}

// orLimit returns n, or def when n is not positive.
func orLimit(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

package reports

import (
	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// Report is a run prepared once for every renderer: the comment, the step summary, the check
// run, the terminal table and the report files all draw the same view, which is built (tests
// flattened, ordered and counted, the baseline matched) only once however many are rendered.
// A Report is read-only once made; any number of renderers may draw it, concurrently too.
type Report struct {
	v *view
}

// NewReport prepares run, compared with baseline when it is not nil, for rendering.
func NewReport(run *result.Run, baseline *compare.Comparison) *Report {
	return &Report{v: newView(run, baseline)}
}

// Rendered holds a run's Markdown reports and check run as a caller rendered (and posted)
// them, for WriteAll to write as they are rather than render again.
type Rendered struct {
	Comment string
	Summary string
	Check   CheckOutput
}

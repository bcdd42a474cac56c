package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/evalgate/evalgate/internal/calibrate"
)

// calibrationHead are the columns of the calibration table and Markdown report.
var calibrationHead = []string{"criterion", "items", "α h–h int", "α h–h ord", "α j–h int", "α j–h ord", "exact", "±1", "bias", "verdict"}

// calibrationCells renders one row; criterion names come from eval and annotation files, so
// they are untrusted and go through esc.
func calibrationCells(r *calibrate.Row, esc func(string) string) []string {
	items := fmt.Sprintf("%d", r.Items)
	if r.MultiRated > 0 {
		items += fmt.Sprintf(" (%d multi)", r.MultiRated)
	}
	return []string{
		esc(r.Criterion), items,
		alphaCell(r.HumanAlpha.Interval), alphaCell(r.HumanAlpha.Ordinal),
		alphaCell(r.JudgeAlpha.Interval), alphaCell(r.JudgeAlpha.Ordinal),
		pct(r.Exact), pct(r.WithinOne), biasCell(r.Bias), string(r.Verdict),
	}
}

func alphaCell(a calibrate.Alpha) string {
	if a.Value == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *a.Value)
}

func pct(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

func biasCell(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.2f", *p)
}

// CalibrationTable writes the terminal table of `evalgate calibrate`, then why each verdict
// was reached.
func CalibrationTable(w io.Writer, rep *calibrate.Report) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "judge–human calibration: %d annotators, %d items\n\n", rep.Annotators, rep.Items)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(calibrationHead, "\t"))
	for _, r := range rep.Criteria {
		fmt.Fprintln(tw, strings.Join(calibrationCells(r, func(s string) string { return termText(s, 40) }), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(ew)
	for _, r := range rep.Criteria {
		fmt.Fprintf(ew, "%s: %s — %s\n", termText(r.Criterion, 60), r.Verdict, r.Why)
	}
	calibrationFooter(ew, rep, func(s string) string { return termText(s, 80) })
	return ew.err
}

// CalibrationMarkdown renders the calibration for $GITHUB_STEP_SUMMARY.
func CalibrationMarkdown(rep *calibrate.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Judge–human calibration\n\n%d annotators, %d items. α: Krippendorff's alpha (h–h between humans, j–h judge vs. the humans' mean; int interval, ord ordinal).\n\n", rep.Annotators, rep.Items)
	b.WriteString("| " + strings.Join(calibrationHead, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(calibrationHead)) + "\n")
	for _, r := range rep.Criteria {
		b.WriteString("| " + strings.Join(calibrationCells(r, mdText), " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, r := range rep.Criteria {
		fmt.Fprintf(&b, "- **%s**: %s — %s\n", mdText(r.Criterion), r.Verdict, mdText(r.Why))
	}
	calibrationFooter(&b, rep, mdText)
	return b.String()
}

// calibrationFooter names the thresholds and the items no result matched.
func calibrationFooter(w io.Writer, rep *calibrate.Report, esc func(string) string) {
	fmt.Fprintf(w, "\nThresholds: α ≥ %g reliable, α ≥ %g tentative (Krippendorff).\n", rep.Thresholds.Reliable, rep.Thresholds.Tentative)
	if n := len(rep.Unmatched); n > 0 {
		shown := rep.Unmatched
		if n > 10 {
			shown = shown[:10]
		}
		names := make([]string, len(shown))
		for i, s := range shown {
			names[i] = esc(s)
		}
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		what := "items are"
		if n == 1 {
			what = "item is"
		}
		fmt.Fprintf(w, "\n%d annotated %s not in the results (ratings kept for human–human α only): %s%s\n", n, what, strings.Join(names, ", "), more)
	}
}

// WriteCalibrationJSON writes the calibration as indented JSON; undefined α is null with a reason.
func WriteCalibrationJSON(w io.Writer, rep *calibrate.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write calibration: %w", err)
	}
	return nil
}

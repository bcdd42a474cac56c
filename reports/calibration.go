package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/evalgate/evalgate/internal/calibrate"
)

// calibrationHead are the columns of the calibration table and Markdown report; with humans
// only, the judge's columns are left out.
func calibrationHead(rep *calibrate.Report) []string {
	if rep.HumansOnly {
		return []string{"criterion", "items (multi)", "α h–h int [95% CI]", "α h–h ord", "verdict"}
	}
	return []string{"criterion", "items", "α h–h int [95% CI]", "α h–h ord", "α j–h int [95% CI]", "α j–h ord", "exact", "±1", "bias", "verdict"}
}

// calibrationCells renders one row; criterion names come from eval and annotation files, so
// they are untrusted and go through esc.
func calibrationCells(rep *calibrate.Report, r *calibrate.Row, esc func(string) string) []string {
	if rep.HumansOnly {
		return []string{esc(r.Criterion), fmt.Sprintf("%d (%d multi)", r.HumanItems, r.MultiRated),
			alphaCell(r.HumanAlpha.Interval), alphaCell(r.HumanAlpha.Ordinal), string(r.Verdict)}
	}
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

// alphaCell is α, with its interval when it has one.
func alphaCell(a calibrate.Alpha) string {
	switch {
	case a.Value == nil:
		return "n/a"
	case a.CI != nil:
		return fmt.Sprintf("%.3f [%.2f, %.2f]", *a.Value, a.CI.Low, a.CI.High)
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
	fmt.Fprintf(ew, "%s: %d annotators, %d items\n\n", calibrationTitle(rep), rep.Annotators, rep.Items)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(calibrationHead(rep), "\t"))
	for _, r := range rep.Criteria {
		fmt.Fprintln(tw, strings.Join(calibrationCells(rep, r, func(s string) string { return termText(s, 40) }), "\t"))
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
	head := calibrationHead(rep)
	legend := "h–h between humans, j–h judge vs. the humans' mean"
	if rep.HumansOnly {
		legend = "h–h between humans"
	}
	fmt.Fprintf(&b, "## %s\n\n%d annotators, %d items. α: Krippendorff's alpha (%s; int interval, ord ordinal).\n\n", upperFirst(calibrationTitle(rep)), rep.Annotators, rep.Items, legend)
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(head)) + "\n")
	for _, r := range rep.Criteria {
		b.WriteString("| " + strings.Join(calibrationCells(rep, r, mdText), " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, r := range rep.Criteria {
		fmt.Fprintf(&b, "- **%s**: %s — %s\n", mdText(r.Criterion), r.Verdict, mdText(r.Why))
	}
	calibrationFooter(&b, rep, mdText)
	return b.String()
}

func calibrationTitle(rep *calibrate.Report) string {
	if rep.HumansOnly {
		return "human–human agreement"
	}
	return "judge–human calibration"
}

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// calibrationFooter names the thresholds, the intervals' method and the items no result matched.
func calibrationFooter(w io.Writer, rep *calibrate.Report, esc func(string) string) {
	bs := rep.Bootstrap
	fmt.Fprintf(w, "\nThresholds: α ≥ %g reliable, α ≥ %g tentative (Krippendorff), applied to the lower bound of α's %g%% interval (%s, %d resamples, seeded); fewer than %d items is not enough data.\n",
		rep.Thresholds.Reliable, rep.Thresholds.Tentative, bs.Confidence*100, bs.Method, bs.Resamples, bs.MinItems)
	sourcesLine(w, rep.Sources, esc)
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

// sourcesLine sums up the annotation files: ratings read, and what was skipped and why.
func sourcesLine(w io.Writer, srcs []*calibrate.Source, esc func(string) string) {
	if len(srcs) == 0 {
		return
	}
	read, files := 0, 0
	var reasons []string
	skips := map[string]int{}
	for _, s := range srcs {
		read += s.Ratings
		if s.Ratings > 0 {
			files++
		}
		for _, k := range s.Skipped {
			if _, ok := skips[k.Reason]; !ok {
				reasons = append(reasons, k.Reason)
			}
			skips[k.Reason] += k.Count
		}
	}
	fmt.Fprintf(w, "\nRead %d ratings from %d of %d annotation files", read, files, len(srcs))
	for i, r := range reasons {
		sep := "; skipped "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(w, "%s%d: %s", sep, skips[r], esc(r))
	}
	fmt.Fprintln(w, ".")
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

package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// TableOptions shape the terminal table of `evalgate run`.
type TableOptions struct {
	// Color turns on ANSI colours for verdicts (off by default: logs and pipes stay plain).
	Color bool
	// Gate is the gate's decision reported in the footer (zero: the default policy's, on the
	// tests alone).
	Gate gate.Decision
	// Width is the terminal width the table must fit (0 = no limit): the SUITE, TEST and
	// CRITERION columns shrink, and reasons wrap, onto their own lines when the row leaves
	// them too little room. The whole reason is always in results.json and the reports.
	Width int
}

// tableReasonBytes bounds the reason of each failed row; a longer reason keeps its start and
// its end, where an error's cause is.
const tableReasonBytes = 240

// ANSI colours, added after padding so they never shift a column.
const ansiReset = "\x1b[0m"

func ansi(v result.Verdict) string {
	switch v {
	case result.Pass:
		return "\x1b[32m"
	case result.Borderline:
		return "\x1b[33m"
	case result.Fail:
		return "\x1b[31m"
	case result.Skip:
		return "\x1b[36m"
	}
	return "\x1b[35m"
}

// errWriter remembers the first write error, so the table code can write freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Table writes r's per-suite table of tests × criteria with aligned columns (suite, test,
// grader › criterion, weight, required, score, verdict, reason), failed and gated rows first,
// then a footer with counts, mean score, tokens, cost and the gate. Failed, gated, errored and
// borderline rows carry a reason: the error, the gate or the judge's reasoning. Every piece of
// model or eval-file text is sanitized: no escape sequence or control character from an agent
// reaches the terminal. With a baseline, a DELTA column and a comparison line are added.
func (r *Report) Table(w io.Writer, opts TableOptions) error {
	v := r.v
	color := func(v result.Verdict, s string) string {
		if !opts.Color {
			return s
		}
		return ansi(v) + s + ansiReset
	}
	ew := &errWriter{w: w}
	lay := layTable(tableRows(v), tableReasonBytes, opts.Width)
	for _, l := range lay.lines(color) {
		_, _ = io.WriteString(ew, l+"\n") // ew keeps the first error
	}
	writeTableFooter(ew, v, opts, color)
	return ew.err
}

// tableRow is one row's cells, plain text, REASON last; verdict colours the VERDICT cell.
type tableRow struct {
	cells   []string
	verdict result.Verdict
	header  bool
}

// tableRows builds the header and one row per suite error, test and grader or criterion.
func tableRows(v *view) []tableRow {
	cols := []string{"SUITE", "TEST", "CRITERION", "WEIGHT", "REQ", "SCORE", "VERDICT", "REASON"}
	if v.cmp != nil {
		cols = []string{"SUITE", "TEST", "CRITERION", "WEIGHT", "REQ", "SCORE", "DELTA", "VERDICT", "REASON"}
	}
	rows := []tableRow{{cells: cols, header: true}}
	add := func(verdict result.Verdict, cells ...string) {
		rows = append(rows, tableRow{cells: cells, verdict: verdict})
	}
	for _, sv := range v.suites {
		name := termText(orDefault(sv.s.Name, "(unnamed suite)"), 40)
		if sv.s.Error != "" {
			cells := []string{name, "", "(suite)", "", "", "-", "error", oneLine(sv.s.Error)}
			if v.cmp != nil {
				cells = append(cells[:6], append([]string{""}, cells[6:]...)...)
			}
			add(result.Error, cells...)
		}
		for _, tv := range sv.tests {
			t := tv.t
			sc := "-"
			if isScored(t.Verdict) {
				sc = score(t.Score)
			}
			cells := []string{name, termText(t.Label(), 60), "(test)", "", "", sc}
			if v.cmp != nil {
				cells = append(cells, termDelta(testChange(tv.delta)))
			}
			add(t.Verdict, append(cells, verdictPlain(t.Verdict, tv.gated()), oneLine(tv.note()))...)
			for i := range tv.rows {
				r := &tv.rows[i]
				sc := "-"
				if r.scored() {
					sc = score(r.score)
				}
				req := reqCell(r)
				if req == "●" {
					req = "yes"
				}
				req = strings.Replace(req, "≥", ">=", 1)
				cells := []string{"", "", termText(r.label(), 60), weight(r.weight), req, sc}
				if v.cmp != nil {
					var cd *compare.CriterionDelta
					if r.leaf {
						cd = tv.delta.Criterion(r.path, r.crit)
					}
					cells = append(cells, termDelta(critChange(cd)))
				}
				add(r.verdict, append(cells, verdictPlain(r.verdict, r.gated), oneLine(rowReason(r)))...)
			}
		}
	}
	return rows
}

// rowReason is why a row did not pass: its error or gate, then the judge's reasoning.
func rowReason(r *row) string {
	if r.verdict == result.Pass && !r.gated {
		return ""
	}
	reasoning := r.g.Reasoning
	if r.isCrit {
		reasoning = r.c.Reasoning
	} else if reasoning == "" {
		for _, a := range r.g.Assertions {
			if !a.Passed {
				reasoning = "failed: " + a.Text
				// Blank evidence (a judge's "" or " ") would print "()".
				if ev := strings.TrimSpace(a.Evidence); ev != "" {
					reasoning += " (" + ev + ")"
				}
				break
			}
		}
	}
	switch {
	case r.note != "" && reasoning != "":
		return r.note + ": " + reasoning
	case r.note != "":
		return r.note
	}
	return reasoning
}

// testChange is the Δ of a test as (change, delta, present); nil-safe.
func testChange(d *compare.TestDelta) (compare.Change, *float64, bool) {
	if d == nil {
		return "", nil, false
	}
	return d.Change, d.Delta, true
}

// critChange is testChange for a criterion.
func critChange(d *compare.CriterionDelta) (compare.Change, *float64, bool) {
	if d == nil {
		return "", nil, false
	}
	return d.Change, d.Delta, true
}

// termDelta is the DELTA cell: "-0.30 v" for a significant regression, "+0.15 ^" for a
// significant improvement, "-0.30 ~" for a change that is not significant.
func termDelta(ch compare.Change, d *float64, ok bool) string {
	if !ok {
		return ""
	}
	val := "-"
	if d != nil {
		val = signed(*d)
	}
	switch ch {
	case compare.Added:
		return "new"
	case compare.Removed:
		return "removed"
	case compare.Regression:
		return val + " v"
	case compare.Improvement:
		return val + " ^"
	case compare.Changed:
		return val + " ~"
	}
	return val
}

func writeTableFooter(w io.Writer, v *view, opts TableOptions, color func(result.Verdict, string) string) {
	t := v.tally
	fmt.Fprintln(w)
	parts := []string{fmt.Sprintf("%s: %d passed, %d borderline, %d failed, %d errored, %d skipped",
		plural(t.Total, "test", "tests"), t.Passed, t.Borderline, t.Failed, t.Errors, t.Skipped)}
	if t.SuiteErrors > 0 {
		parts = append(parts, plural(t.SuiteErrors, "suite", "suites")+" not run")
	}
	if t.Scored == 0 {
		parts = append(parts, "no test was graded")
	} else {
		parts = append(parts, "mean score "+score(t.mean()))
	}
	if tok := t.Usage.InputTokens + t.Usage.OutputTokens; tok > 0 {
		s := fmt.Sprintf("%s tokens (%s in, %s out", thousands(tok), thousands(t.Usage.InputTokens), thousands(t.Usage.OutputTokens))
		if j := t.Usage.Judge; j != nil && j.InputTokens+j.OutputTokens > 0 {
			s += "; judge " + thousands(j.InputTokens+j.OutputTokens)
		}
		parts = append(parts, s+")")
	}
	if t.Usage.CostUSD > 0 {
		s := cost(t.Usage.CostUSD)
		if j := t.Usage.Judge; j != nil && j.CostUSD > 0 {
			s += " (judge " + cost(j.CostUSD) + ")"
		}
		parts = append(parts, s)
	}
	if n := t.Usage.Calls; n > 0 {
		parts = append(parts, plural(n, "LLM call", "LLM calls"))
	}
	if bt := budgetText(v.run.Budget); bt != "" {
		parts = append(parts, bt)
	}
	if t.DurationMS > 0 {
		parts = append(parts, duration(t.DurationMS))
	}
	for _, l := range fitParts(parts, " · ", opts.Width) {
		fmt.Fprintln(w, l)
	}
	if c := v.cmp; c != nil {
		base := "base"
		if c.BaseSHA != "" {
			base += " " + termText(shortSHA(c.BaseSHA), 7)
		}
		fmt.Fprintf(w, "vs %s: %s\n", base, compareSummary(c, false))
		if !c.NothingComparable() { // the line above says it already
			for _, warn := range c.Warnings {
				fmt.Fprintf(w, "warning: %s\n", warn)
			}
		}
	}
	d := decided(v, opts.Gate)
	// Only success is green: a cancelled or unknown conclusion fails the gate.
	gv := result.Fail
	switch d.Conclusion {
	case gate.Success:
		gv = result.Pass
	case gate.Neutral:
		gv = result.Borderline
	}
	fmt.Fprintf(w, "gate: %s (%s)\n", color(gv, strings.ToUpper(d.Conclusion)), gatePolicy(d))
}

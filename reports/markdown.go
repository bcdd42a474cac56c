package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// mdConfig says which parts of the Markdown report to draw, for the comment, the step summary
// and the check run's summary and text, which all share this renderer.
type mdConfig struct {
	marker      string
	head        bool // headline, counts, gate, links, comparison
	crits       bool // the criteria-across-the-run table
	tables      bool // the per-suite tables
	details     bool // <details> with reasoning, assertions, answers
	passDetails bool // details for passing tests too
	answerBytes int  // answer excerpt in details, 0 = none
	reasonBytes int  // per reasoning or note text in details
	checkURL    string
	runURL      string
	reportHint  string
	rerun       string // slash command for the footer, "" = no footer hint
	footer      bool
	gate        gate.Decision // zero: decided from the view
	maxBytes    int
}

// plan is one level of detail; the budget search lowers it until the report fits.
type plan struct {
	collapse bool // fold passing tests into one count per suite
	details  int  // detail sections kept, most important first
	rows     int  // tests whose rows are kept, most important first
	crits    int  // criteria-summary rows kept
}

// omitted counts what a plan left out, for the note that says so.
type omitted struct{ collapsed, details, rows, crits int }

func (o omitted) any() bool { return o.collapsed+o.details+o.rows+o.crits > 0 }

// mdRenderer draws one view under one config. The budget search tries many plans; the parts
// no plan changes (the head, each test's table rows and details) are drawn once and reused.
type mdRenderer struct {
	v          *view
	cfg        mdConfig
	detailRank map[*testView]int
	head       *string
	rows       map[*testView]string
	details    map[*testView]string
}

// sink is where a render goes: a builder, or nothing while the budget search only measures.
type sink struct {
	b *strings.Builder // nil: count only
	n int
}

func (s *sink) WriteString(x string) (int, error) {
	s.n += len(x)
	if s.b != nil {
		s.b.WriteString(x)
	}
	return len(x), nil
}

func (s *sink) Write(p []byte) (int, error) {
	s.n += len(p)
	if s.b != nil {
		s.b.Write(p)
	}
	return len(p), nil
}

// once returns what draw writes for tv, drawing it the first time only.
func once(cache map[*testView]string, tv *testView, draw func(*sink)) string {
	if s, ok := cache[tv]; ok {
		return s
	}
	var b strings.Builder
	draw(&sink{b: &b})
	cache[tv] = b.String()
	return cache[tv]
}

func newMarkdown(v *view, cfg mdConfig) *mdRenderer {
	m := &mdRenderer{v: v, cfg: cfg, detailRank: map[*testView]int{}, rows: map[*testView]string{}, details: map[*testView]string{}}
	if cfg.details {
		for _, tv := range v.order {
			if m.hasDetails(tv) {
				m.detailRank[tv] = len(m.detailRank)
			}
		}
	}
	return m
}

// full is the plan that keeps everything.
func (m *mdRenderer) full() plan {
	return plan{details: len(m.detailRank), rows: len(m.v.order), crits: len(m.v.crits)}
}

// render draws the report under plan p.
func (m *mdRenderer) render(p plan) string {
	var b strings.Builder
	m.write(&sink{b: &b}, p)
	return b.String()
}

// size is the length of render(p), measured without building it.
func (m *mdRenderer) size(p plan) int {
	s := &sink{}
	m.write(s, p)
	return s.n
}

func (m *mdRenderer) write(b *sink, p plan) {
	var om omitted
	if m.cfg.marker != "" {
		b.WriteString(m.cfg.marker + "\n")
	}
	if m.cfg.head {
		if m.head == nil {
			var hb strings.Builder
			m.writeHead(&sink{b: &hb})
			h := hb.String()
			m.head = &h
		}
		b.WriteString(*m.head)
	}
	if m.cfg.crits {
		m.writeCrits(b, p, &om)
	}
	for _, sv := range worstFirst(m.v.suites) {
		m.writeSuite(b, sv, p, &om)
	}
	if m.cfg.tables {
		b.WriteString(m.unselected())
	}
	if om.any() {
		b.WriteString("\n" + m.trimNote(om) + "\n")
	}
	if m.cfg.footer {
		b.WriteString(m.footer())
	}
}

// worstFirst orders suite sections as the tests within them: a suite that could not run, then
// by its most important test, so a failing suite is never below a passing one; ties keep the
// run's order.
func worstFirst(suites []*suiteView) []*suiteView {
	out := slices.Clone(suites)
	rank := func(sv *suiteView) int {
		switch {
		case sv.s.Error != "":
			return math.MinInt
		case len(sv.tests) == 0:
			return math.MaxInt
		}
		return sv.tests[0].sev
	}
	slices.SortStableFunc(out, func(a, b *suiteView) int { return cmp.Compare(rank(a), rank(b)) })
	return out
}

// phrase says in a few plain words how the run went ("2 failed, 1 errored of 7 tests").
func phrase(t tally) string {
	var parts []string
	if t.Failed > 0 {
		parts = append(parts, strconv.Itoa(t.Failed)+" failed")
	}
	if t.Errors > 0 {
		parts = append(parts, strconv.Itoa(t.Errors)+" errored")
	}
	if t.Borderline > 0 {
		parts = append(parts, strconv.Itoa(t.Borderline)+" borderline")
	}
	suites := ""
	if t.SuiteErrors > 0 {
		suites = "; " + plural(t.SuiteErrors, "suite", "suites") + " could not run"
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, ", ") + " of " + plural(t.Total, "test", "tests") + suites
	case suites != "":
		return strings.TrimPrefix(suites, "; ")
	case t.Skipped > 0:
		return fmt.Sprintf("%d passed, %d skipped of %s", t.Passed, t.Skipped, plural(t.Total, "test", "tests"))
	case t.Passed == 1:
		return "1 test passed"
	case t.Passed > 0:
		return "all " + plural(t.Passed, "test", "tests") + " passed"
	}
	return "no tests were graded"
}

func (m *mdRenderer) headline() string {
	return emoji(m.v.tally.verdict()) + " evalgate: " + phrase(m.v.tally)
}

func (m *mdRenderer) writeHead(b *sink) {
	t, run := m.v.tally, m.v.run
	fmt.Fprintf(b, "## %s\n\n", m.headline())
	th := run.Thresholds.Pass
	if th == 0 {
		th = result.DefaultThresholds.Pass
	}
	headline := "**No test was graded**"
	if t.Scored > 0 {
		// The mean is no verdict: "Score 0.86 (pass ≥ 0.80)" beside "2 failed" read as a pass.
		// The line is each test's, and a mean over the few tests a cancelled run graded says
		// how many those were.
		of := ""
		if t.Scored < t.Total {
			of = fmt.Sprintf(" of %d graded", t.Scored)
		}
		headline = fmt.Sprintf("**Mean score %s%s** (a test passes at ≥ %s)", score(t.mean()), of, score(th))
	}
	stats := []string{headline, "✅ " + strconv.Itoa(t.Passed) + " passed"}
	if t.Borderline > 0 {
		stats = append(stats, "🟡 "+strconv.Itoa(t.Borderline)+" borderline")
	}
	if t.Failed > 0 {
		f := "❌ " + strconv.Itoa(t.Failed) + " failed"
		if t.Gated > 0 {
			f += " (" + strconv.Itoa(t.Gated) + " by a required gate)"
		}
		stats = append(stats, f)
	}
	if t.Errors > 0 {
		stats = append(stats, "💥 "+plural(t.Errors, "error", "errors"))
	}
	if t.Skipped > 0 {
		stats = append(stats, "⏭️ "+strconv.Itoa(t.Skipped)+" skipped")
	}
	if run.Context != nil && run.Context.SHA != "" {
		stats = append(stats, "head "+codeSpan(shortSHA(run.Context.SHA), false))
	}
	if u := usageText(t.Usage); u != "" {
		stats = append(stats, u)
	}
	if t.DurationMS > 0 {
		stats = append(stats, duration(t.DurationMS))
	}
	if bt := budgetText(run.Budget); bt != "" {
		stats = append(stats, "💸 "+bt)
	}
	b.WriteString(strings.Join(stats, " · ") + "\n\n")
	d := decided(m.v, m.cfg.gate)
	line := []string{fmt.Sprintf("Gate: **%s** (%s)", d.Conclusion, gatePolicy(d))}
	if u := safeURL(m.cfg.checkURL); u != "" {
		line = append(line, "[Check run]("+u+")")
	}
	if u := safeURL(m.cfg.runURL); u != "" {
		line = append(line, "[Workflow run]("+u+")")
	}
	b.WriteString(strings.Join(line, " · ") + "\n")
	if m.v.cmp != nil {
		m.writeComparison(b)
	}
}

// maxListedRegressions bounds each list (significant, changed) under the comparison line.
const maxListedRegressions = 10

func (m *mdRenderer) writeComparison(b *sink) {
	c := m.v.cmp
	base := "base"
	if c.BaseSHA != "" {
		base += " " + codeSpan(shortSHA(c.BaseSHA), false)
	}
	fmt.Fprintf(b, "\n**Compared with %s:** %s\n", base, compareSummary(c, true))
	if !c.NothingComparable() {
		if c.Pooled != nil {
			fmt.Fprintf(b, "\nSuite-level: %s.\n", pooledLine(c.Pooled))
		}
		for _, w := range c.Warnings {
			fmt.Fprintf(b, "\n> ⚠️ %s\n", mdText(w))
		}
	}
	m.listChanges(b, c, compare.Regression, "⬇️", "")
	m.listChanges(b, c, compare.Changed, "↕️", " — changed, not significant")
	// Tests of suites the head no longer has: no suite section will mention them.
	present := map[string]bool{}
	for _, sv := range m.v.suites {
		present[sv.s.Name] = true
	}
	var gone []string
	for _, d := range c.Tests {
		if d != nil && d.Change == compare.Removed && !present[d.Suite] {
			gone = append(gone, mdText(clip(d.Suite, 80))+" › "+codeSpan(clip(d.ID, 120), false))
		}
	}
	if len(gone) > maxRemovedListed {
		gone = append(gone[:maxRemovedListed], fmt.Sprintf("… and %d more", len(gone)-maxRemovedListed))
	}
	if len(gone) > 0 {
		b.WriteString("\n➖ Removed with their suites: " + strings.Join(gone, ", ") + "\n")
	}
}

func scoreOrDash(v result.Verdict, s float64) string {
	if isScored(v) {
		return score(s)
	}
	return verdictWord(v)
}

// listChanges lists the tests with change ch under the comparison line, with their evidence.
func (m *mdRenderer) listChanges(b *sink, c *compare.Comparison, ch compare.Change, mark, tail string) {
	listed, total := 0, c.Count(ch)
	for _, d := range c.Tests {
		if d == nil || d.Change != ch {
			continue
		}
		if listed == maxListedRegressions {
			fmt.Fprintf(b, "- … and %d more\n", total-listed)
			break
		}
		if listed == 0 {
			b.WriteString("\n")
		}
		listed++
		ev := evidence(d)
		if ev != "" {
			ev = " (" + ev + ")"
		}
		fmt.Fprintf(b, "- %s %s › %s: %s %s → %s %s%s%s\n", mark, mdText(clip(d.Suite, 80)), codeSpan(clip(d.ID, 120), false),
			emoji(d.Base), scoreOrDash(d.Base, d.BaseScore), emoji(d.Head), scoreOrDash(d.Head, d.HeadScore), ev, tail)
	}
}

func (m *mdRenderer) writeCrits(b *sink, p plan, om *omitted) {
	if len(m.v.crits) == 0 {
		return
	}
	multi := len(m.v.suites) > 1
	b.WriteString("\n### Criteria across the run\n\n")
	if multi {
		b.WriteString("| Criterion | Suite | Tests | Pass rate | Mean score |\n|---|---|--:|--:|---|\n")
	} else {
		b.WriteString("| Criterion | Tests | Pass rate | Mean score |\n|---|--:|--:|---|\n")
	}
	for i, c := range m.v.crits {
		if i >= p.crits {
			om.crits = len(m.v.crits) - i
			fmt.Fprintf(b, "\n*… %d more criteria not shown.*\n", om.crits)
			return
		}
		label := mdText(clip(c.path, 80))
		if c.crit != "" {
			label += " › " + codeSpan(clip(c.crit, 80), true)
		}
		if c.outcome != "" {
			label += " (" + mdText(clip(c.outcome, 60)) + ")"
		}
		b.WriteString("| " + label + " | ")
		if multi {
			b.WriteString(mdText(clip(c.suite, 60)) + " | ")
		}
		mean := "—"
		if c.scored > 0 {
			mean = bar(c.mean()) + " " + score(c.mean())
		}
		fmt.Fprintf(b, "%d | %d/%d (%d%%) | %s |\n", c.n, c.passes, c.denom, int(c.passRate()*100+0.5), mean)
	}
}

func (m *mdRenderer) trimNote(om omitted) string {
	var parts []string
	if om.collapsed > 0 {
		parts = append(parts, plural(om.collapsed, "passing test", "passing tests")+" collapsed")
	}
	if om.details > 0 {
		parts = append(parts, plural(om.details, "detail section", "detail sections")+" left out")
	}
	if om.rows > 0 {
		parts = append(parts, plural(om.rows, "test's rows", "tests' rows")+" left out")
	}
	if om.crits > 0 {
		parts = append(parts, plural(om.crits, "criterion summary row", "criterion summary rows")+" left out")
	}
	return fmt.Sprintf("> ✂️ **Trimmed to fit %s bytes:** %s. Full report: %s.",
		thousands(int64(m.cfg.maxBytes)), strings.Join(parts, ", "), m.hint())
}

func (m *mdRenderer) hint() string {
	if h := clip(m.cfg.reportHint, 200); h != "" {
		return mdText(h)
	}
	return "the workflow run's job summary"
}

func (m *mdRenderer) footer() string {
	var parts []string
	if m.cfg.rerun != "" {
		parts = append(parts, "🔁 Rerun: comment "+codeSpan(clip(m.cfg.rerun, 80), false)+" on this pull request (write access required)")
	}
	parts = append(parts, "Full report: "+m.hint())
	if c := m.v.run.Context; c != nil {
		if u := safeURL(c.ReportURL); u != "" {
			parts = append(parts, "[📊 report.html]("+u+")")
		}
	}
	if ts := m.v.run.FinishedAt; !ts.IsZero() {
		parts = append(parts, "Updated "+ts.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return "\n---\n<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}

// maxUnselectedListed bounds the suite paths the "not run" line names.
const maxUnselectedListed = 10

// unselected is the line naming the suites the selection left out, "" when none was: a
// suite that did not run must not read as one that passed.
func (m *mdRenderer) unselected() string {
	us := m.v.run.Unselected
	if len(us) == 0 {
		return ""
	}
	var names []string
	for _, u := range us[:min(len(us), maxUnselectedListed)] {
		names = append(names, codeSpan(clip(u.Path, 120), false))
	}
	list := strings.Join(names, ", ")
	if more := len(us) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	s := fmt.Sprintf("\n**Not run:** %s not selected for this run (a suite runs when the change touches it or a file it references): %s.",
		plural(len(us), "suite", "suites"), list)
	if m.cfg.rerun != "" {
		s += " Comment " + codeSpan(clip(m.cfg.rerun, 80)+" <suite-glob>", false) + " to run one."
	}
	return s + "\n"
}

// maxRemovedListed bounds the names listed under "removed since base" per suite.
const maxRemovedListed = 20

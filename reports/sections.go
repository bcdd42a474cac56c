package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// Per-suite sections of the Markdown reports: the suite's heading, its table of tests ×
// criteria, the lines saying what was folded or left out, and the <details> of each test.

// noteBytes bounds a Note cell; the full text is in the details and the other reports.
const noteBytes = 100

func (m *mdRenderer) writeSuite(b *sink, sv *suiteView, p plan, om *omitted) {
	var shown []*testView
	collapsed, dropped := 0, tally{}
	for _, tv := range sv.tests {
		switch {
		case p.collapse && tv.foldable():
			collapsed++
		case m.cfg.tables && tv.prio >= p.rows:
			dropped.add(tv.t)
		default:
			shown = append(shown, tv)
		}
	}
	var details []*testView
	for _, tv := range shown {
		if rank, ok := m.detailRank[tv]; ok {
			if rank < p.details {
				details = append(details, tv)
			} else {
				om.details++
			}
		}
	}
	if !m.cfg.tables {
		if len(details) == 0 && sv.s.Error == "" {
			return
		}
	} else {
		om.collapsed += collapsed
		om.rows += dropped.Total
	}
	s := sv.s
	fmt.Fprintf(b, "\n### %s %s\n", emoji(sv.tally.verdict()), mdText(clip(orDefault(s.Name, "(unnamed suite)"), 120)))
	if m.cfg.tables {
		m.writeSuiteMeta(b, sv)
	}
	if s.Error != "" {
		fmt.Fprintf(b, "\n💥 **Could not run this suite:** %s\n", mdText(clip(s.Error, 500)))
	}
	if m.cfg.tables && len(shown) > 0 {
		m.writeTable(b, shown)
	}
	if m.cfg.tables {
		if collapsed > 0 {
			fmt.Fprintf(b, "\n✅ %s collapsed to fit; see the full report.\n", plural(collapsed, "passing test", "passing tests"))
		}
		if dropped.Total > 0 {
			fmt.Fprintf(b, "\n✂️ %s not shown: %s.\n", plural(dropped.Total, "more test", "more tests"), countsText(dropped))
		}
		if len(sv.removed) > 0 {
			m.writeRemoved(b, sv.removed)
		}
	}
	for _, tv := range details {
		b.WriteString(once(m.details, tv, func(b *sink) { m.writeDetails(b, tv) }))
	}
}

func (m *mdRenderer) writeSuiteMeta(b *sink, sv *suiteView) {
	s := sv.s
	var meta []string
	if s.Path != "" {
		meta = append(meta, codeSpan(clip(s.Path, 200), false))
	}
	if s.Target != "" {
		meta = append(meta, "target "+codeSpan(clip(s.Target, 80), false))
	}
	if s.Why != "" {
		meta = append(meta, "selected: "+mdText(clip(s.Why, 120)))
	}
	meta = append(meta, plural(sv.tally.Total, "test", "tests")+": "+countsText(sv.tally))
	if sv.tally.Scored > 0 {
		meta = append(meta, "score "+score(sv.tally.mean()))
	}
	b.WriteString("\n" + strings.Join(meta, " · ") + "\n")
}

// countsText is "1 failed, 2 passed": the non-zero counts, worst first.
func countsText(t tally) string {
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{t.Failed, "failed"}, {t.Errors, "errored"}, {t.Borderline, "borderline"}, {t.Skipped, "skipped"}, {t.Passed, "passed"}} {
		if c.n > 0 {
			parts = append(parts, strconv.Itoa(c.n)+" "+c.word)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (m *mdRenderer) writeTable(b *sink, tests []*testView) {
	cmpCol := m.v.cmp != nil
	if cmpCol {
		b.WriteString("\n| Test | Criterion | Weight | Req | Score | Δ | Verdict | Note |\n|---|---|--:|:-:|--:|--:|---|---|\n")
	} else {
		b.WriteString("\n| Test | Criterion | Weight | Req | Score | Verdict | Note |\n|---|---|--:|:-:|--:|---|---|\n")
	}
	for _, tv := range tests {
		b.WriteString(once(m.rows, tv, func(b *sink) { m.writeTestRows(b, tv) }))
	}
}

// writeTestRows writes tv's rows of its suite's table: the overall row, then one per row.
func (m *mdRenderer) writeTestRows(b *sink, tv *testView) {
	cmpCol := m.v.cmp != nil
	t := tv.t
	sc := "—"
	if isScored(t.Verdict) {
		sc = "**" + score(t.Score) + "**"
	}
	fmt.Fprintf(b, "| %s | *overall* | | | %s |", codeSpan(clip(t.Label(), 120), true), sc)
	if cmpCol {
		b.WriteString(" " + testDeltaCell(tv.delta) + " |")
	}
	fmt.Fprintf(b, " %s | %s |\n", verdictCell(t.Verdict, tv.gated()), mdText(clip(tv.note(), noteBytes)))
	for i := range tv.rows {
		r := &tv.rows[i]
		sc := "—"
		if r.scored() {
			sc = score(r.score)
		}
		fmt.Fprintf(b, "| | %s | %s | %s | %s |", rowLabel(r), weight(r.weight), reqCell(r), sc)
		if cmpCol {
			var cd *compare.CriterionDelta
			if r.leaf {
				cd = tv.delta.Criterion(r.path, r.crit)
			}
			b.WriteString(" " + critDeltaCell(tv.delta, cd) + " |")
		}
		fmt.Fprintf(b, " %s | %s |\n", verdictCell(r.verdict, r.gated), mdText(clip(r.note, noteBytes)))
	}
	if cmpCol && tv.delta != nil {
		for _, cd := range tv.delta.Criteria {
			if cd == nil || cd.Change != compare.Removed {
				continue
			}
			r := row{path: cd.Grader, crit: cd.Criterion, isCrit: cd.Criterion != ""}
			fmt.Fprintf(b, "| | %s | | | — | ➖ | ➖ removed | was %s |\n", rowLabel(&r), scoreOrDash(cd.Base, cd.BaseScore))
		}
	}
}

// rowLabel is "grader › `criterion`", escaped for a table cell.
func rowLabel(r *row) string {
	l := mdText(clip(r.path, 80))
	if r.isCrit {
		l += " › " + codeSpan(clip(r.crit, 80), true)
	}
	return l
}

func reqCell(r *row) string {
	switch {
	case r.minScore != nil:
		return "≥" + score(*r.minScore)
	case r.required:
		return "●"
	}
	return ""
}

func verdictCell(v result.Verdict, gated bool) string { return emoji(v) + " " + verdictPlain(v, gated) }

// verdictPlain is "fail · gate" for a gated failure, else the verdict's word.
func verdictPlain(v result.Verdict, gated bool) string {
	if gated {
		return verdictWord(v) + " · gate"
	}
	return verdictWord(v)
}

func testDeltaCell(d *compare.TestDelta) string {
	if d == nil {
		return ""
	}
	return deltaCell(d.Change, d.Delta, d.Stat)
}

func critDeltaCell(td *compare.TestDelta, cd *compare.CriterionDelta) string {
	if cd == nil {
		if td != nil && td.Change == compare.Added {
			return "🆕"
		}
		return ""
	}
	return deltaCell(cd.Change, cd.Delta, cd.Stat)
}

// deltaCell is a Markdown Δ cell: "⬇️ -0.18 [-0.30, -0.06]" for a significant regression
// (the bracket is the 95 % interval), "↕️ -0.30 [-0.80, +0.25]" for a change that is not
// significant, the bare Δ when nothing changed.
func deltaCell(ch compare.Change, d *float64, st compare.Stat) string {
	val := "—"
	if d != nil {
		val = signed(*d)
		if ch != compare.Unchanged && st.CILow != nil && st.CIHigh != nil {
			val += " [" + signed(*st.CILow) + ", " + signed(*st.CIHigh) + "]"
		}
	}
	switch ch {
	case compare.Added:
		return "🆕"
	case compare.Removed:
		return "➖"
	case compare.Regression:
		return "⬇️ " + val
	case compare.Improvement:
		return "⬆️ " + val
	case compare.Changed:
		return "↕️ " + val
	}
	return val
}

func (m *mdRenderer) writeRemoved(b *sink, removed []*compare.TestDelta) {
	var names []string
	for i, d := range removed {
		if i == maxRemovedListed {
			names = append(names, fmt.Sprintf("… and %d more", len(removed)-i))
			break
		}
		names = append(names, codeSpan(clip(d.ID, 120), false))
	}
	fmt.Fprintf(b, "\n➖ Removed since base: %s\n", strings.Join(names, ", "))
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

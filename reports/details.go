package reports

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// The <details> section of one test: its error and gates, each criterion's expected outcome and
// the judge's reasoning, failed assertions and an excerpt of the answer. Every piece of text in
// it came from a model, an agent or an eval file, so each goes through an escaping helper, and
// the section always closes: "</details>" follows a blank line and nothing inside can end it
// (HTML in text is escaped, code is fenced).

// inDetails reports whether a row belongs in its test's details.
func (r *row) inDetails() bool {
	if r.verdict != result.Pass || r.note != "" {
		return true
	}
	if r.isCrit {
		return r.c.Reasoning != ""
	}
	return r.g.Reasoning != ""
}

// hasDetails reports whether tv gets a details section under m's config.
func (m *mdRenderer) hasDetails(tv *testView) bool {
	t := tv.t
	if t.Verdict == result.Pass && !m.cfg.passDetails && !tv.flaky() {
		return false
	}
	if t.Error != "" || len(t.Gates) > 0 || t.TrialSummary != nil || m.answer(tv) != "" || m.changes(tv) != "" || len(failedAssertions(t.Graders, 0)) > 0 || len(t.Turns) > 0 {
		return true
	}
	for i := range tv.rows {
		if tv.rows[i].inDetails() {
			return true
		}
	}
	return false
}

// answer is the answer excerpt shown for tv ("" for passing tests: nobody needs to read it).
func (m *mdRenderer) answer(tv *testView) string {
	if m.cfg.answerBytes <= 0 || tv.t.Verdict == result.Pass {
		return ""
	}
	return tv.cleanAnswer()
}

// changes is the workspace diff shown for tv, on the same terms as its answer: what the agent
// changed is the evidence a reviewer of a failed coding test reads first.
func (m *mdRenderer) changes(tv *testView) string {
	if m.cfg.answerBytes <= 0 || tv.t.Verdict == result.Pass || tv.t.Output == nil {
		return ""
	}
	return strings.TrimSpace(sanitize(tv.t.Output.FileChanges))
}

func (m *mdRenderer) writeDetails(b *sink, tv *testView) {
	t := tv.t
	n := m.cfg.reasonBytes
	fmt.Fprintf(b, "\n<details><summary>%s <code>%s</code> · %s · %s</summary>\n\n",
		emoji(t.Verdict), htmlText(clip(t.Label(), 120)), htmlText(scoreOrDash(t.Verdict, t.Score)), htmlText(clip(t.Suite, 80)))
	if t.Error != "" && t.Verdict == result.Skip {
		fmt.Fprintf(b, "**Skipped:** %s\n\n", mdLines(truncate(t.Error, n)))
	} else if t.Error != "" {
		stage := ""
		if t.FailureStage != "" {
			stage = " (" + mdText(clip(t.FailureStage, 40)) + ")"
		}
		fmt.Fprintf(b, "**Error**%s: %s\n\n", stage, mdLines(truncate(t.Error, n)))
	}
	for _, g := range t.Gates {
		fmt.Fprintf(b, "**Gate:** %s\n\n", mdText(clip(g, 300)))
	}
	if len(t.Turns) > 0 {
		b.WriteString(turnsLine(t) + "\n\n")
	}
	writeTrials(b, t)
	listed := map[*result.GraderResult]bool{}
	var items []string
	for i := range tv.rows {
		r := &tv.rows[i]
		if !r.isCrit {
			listed[r.g] = true
		}
		if r.inDetails() {
			items = append(items, rowItem(r, n))
		}
	}
	// A grader summarised only through its criteria still has an overall reasoning worth reading.
	for i := range tv.rows {
		g := tv.rows[i].g
		if g != nil && !listed[g] && g.Reasoning != "" {
			listed[g] = true
			items = append(items, fmt.Sprintf("- 🧑‍⚖️ **%s** overall: %s", mdText(clip(tv.rows[i].path, 80)), mdLines(truncate(g.Reasoning, n))))
		}
	}
	if len(items) > 0 {
		b.WriteString(strings.Join(items, "\n") + "\n\n")
	}
	if fa := append(turnFailedAssertions(t), failedAssertions(t.Graders, 0)...); len(fa) > 0 {
		b.WriteString("**Failed assertions**\n\n")
		for _, a := range fa {
			line := "- ❌ " + mdText(clip(a.Text, 300))
			if ev := strings.TrimSpace(a.Evidence); ev != "" {
				line += " — " + mdLines(truncate(ev, n))
			}
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	if ans := m.answer(tv); ans != "" {
		cut := truncate(ans, m.cfg.answerBytes)
		if len(cut) < len(ans) {
			fmt.Fprintf(b, "**Answer** (first %s of %s bytes):\n\n", thousands(int64(len(cut))), thousands(int64(len(ans))))
		} else {
			b.WriteString("**Answer:**\n\n")
		}
		b.WriteString(fenced(cut, "text") + "\n")
	}
	if d := m.changes(tv); d != "" {
		cut := truncate(d, m.cfg.answerBytes)
		if len(cut) < len(d) {
			fmt.Fprintf(b, "**Workspace changes** (first %s of %s bytes; the whole diff is in results.json):\n\n", thousands(int64(len(cut))), thousands(int64(len(d))))
		} else {
			b.WriteString("**Workspace changes:**\n\n")
		}
		b.WriteString(fenced(cut, "diff") + "\n")
	}
	b.WriteString("</details>\n")
}

// rowItem is one list item: the row's verdict, numbers, expected outcome, reasoning and error,
// kept on one source line (breaks are <br>) so no text can start a block of its own.
func rowItem(r *row, n int) string {
	var facts []string
	facts = append(facts, verdictWord(r.verdict))
	if r.gated {
		facts[0] += " (gate)"
	}
	if r.scored() {
		facts = append(facts, "score "+score(r.score))
	}
	facts = append(facts, "weight "+weight(r.weight))
	if req := reqCell(r); req != "" {
		if req == "●" {
			req = "required"
		} else {
			req = "min " + strings.TrimPrefix(req, "≥")
		}
		facts = append(facts, req)
	}
	label := mdText(clip(r.path, 80))
	if r.isCrit {
		label += " › " + codeSpan(clip(r.crit, 80), false)
	}
	s := fmt.Sprintf("- %s **%s** · %s", emoji(r.verdict), label, strings.Join(facts, " · "))
	var reasoning string
	if r.isCrit {
		c := r.c
		if c.Outcome != "" {
			s += "<br>*Expected:* " + mdLines(truncate(c.Outcome, n))
		}
		if c.Band != "" || c.Raw != nil {
			band := ""
			if c.Raw != nil {
				band = fmt.Sprintf("raw %d", *c.Raw)
			}
			if c.Band != "" {
				band = strings.TrimPrefix(band+" — ", " — ") + mdText(clip(c.Band, 200))
			}
			s += "<br>*Band:* " + band
		}
		if a := c.Agreement; a != nil && a.Samples > 1 {
			s += fmt.Sprintf("<br>*Samples:* %d, agreement %d%%", a.Samples, int(finite(a.Ratio)*100+0.5))
			if a.Unstable {
				s += " (unstable)"
			}
		}
		reasoning = c.Reasoning
	} else {
		reasoning = r.g.Reasoning
	}
	if reasoning != "" {
		s += "<br>*Judge:* " + mdLines(truncate(reasoning, n))
	}
	if r.note != "" {
		s += "<br>*Note:* " + mdLines(truncate(r.note, n))
	}
	return s
}

// failedAssertions collects the failed assertions of gs and their members.
func failedAssertions(gs []*result.GraderResult, depth int) []result.Assertion {
	var out []result.Assertion
	for _, g := range gs {
		if g == nil {
			continue
		}
		for _, a := range g.Assertions {
			if !a.Passed {
				out = append(out, a)
			}
		}
		if depth < maxDepth {
			out = append(out, failedAssertions(g.Members, depth+1)...)
		}
	}
	return out
}

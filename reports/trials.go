package reports

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
)

// flakyFirst moves a flaky test ahead of every test whose trials agreed, keeping the
// severity order among flaky tests: a test that passes only sometimes is what a reader of
// a trials run most needs to see.
const flakyFirst = 10

// trialsNote is "3/5 trials passed (flaky, mean)", with why fewer trials ran than were asked
// for; "" for a test run once.
func trialsNote(s *result.Trials) string {
	if s == nil {
		return ""
	}
	tags := ""
	if s.Flaky {
		tags = "🎲 flaky, "
	}
	n := fmt.Sprintf("%d/%d trials passed (%s%s)", s.Passed, s.Ran, tags, s.Strategy)
	if s.Ran < s.Count {
		n += fmt.Sprintf("; %d of %d run: %s", s.Ran, s.Count, s.Stopped)
	}
	return n
}

// writeTrials lists a test's trials and each criterion's pass rate across them; the rest of
// the details are the best trial's.
func writeTrials(b *sink, t *result.TestResult) {
	s := t.TrialSummary
	if s == nil {
		return
	}
	fmt.Fprintf(b, "**Trials:** %s · mean %s (min %s, max %s)", mdText(trialsNote(s)), score(s.Mean), score(s.Min), score(s.Max))
	if s.CI95Lower != nil && s.CI95Upper != nil {
		fmt.Fprintf(b, " · 95%% CI [%s, %s]", score(*s.CI95Lower), score(*s.CI95Upper))
	}
	b.WriteString("; the details below are the best trial's.\n\n")
	for _, tr := range t.Trials {
		line := fmt.Sprintf("%d. %s", tr.Trial, verdictCell(tr.Verdict, len(tr.Gates) > 0))
		if isScored(tr.Verdict) {
			line += " " + score(tr.Score)
		}
		if tr.Error != "" {
			line += " — " + mdText(clip(tr.Error, 200))
		}
		b.WriteString(line + "\n")
	}
	if len(s.Criteria) > 0 {
		b.WriteString("\n| Criterion | Trials passed |\n|---|--:|\n")
		for _, c := range s.Criteria {
			r := row{path: c.Grader, crit: c.Criterion, isCrit: c.Criterion != ""}
			fmt.Fprintf(b, "| %s | %d/%d |\n", rowLabel(&r), c.Passed, c.Total)
		}
	}
	b.WriteString("\n")
}

package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/stats"
)

// removedIn lists the tests of suite only the base had.
func removedIn(c *compare.Comparison, suite string) []*compare.TestDelta {
	var out []*compare.TestDelta
	if c == nil {
		return out
	}
	for _, d := range c.Tests {
		if d != nil && d.Change == compare.Removed && d.Suite == suite {
			out = append(out, d)
		}
	}
	return out
}

// compareSummary is the comparison line: "2 significant regressions, 3 changed (not
// significant), … · mean Δ -0.05 over 12 tests (family-wise α 0.05)", or "nothing comparable"
// when the baseline shares no test with a result. md adds the Markdown emoji.
func compareSummary(c *compare.Comparison, md bool) string {
	e := func(s string) string {
		if md {
			return s + " "
		}
		return ""
	}
	added, removed := c.Count(compare.Added), c.Count(compare.Removed)
	if c.NothingComparable() {
		return fmt.Sprintf("nothing comparable — no test has a result on both sides (the tests errored or were skipped, or the baseline ran other tests) · %s%d added · %s%d removed",
			e("🆕"), added, e("➖"), removed)
	}
	parts := []string{
		e("⬇️") + plural(c.Count(compare.Regression), "significant regression", "significant regressions"),
		e("↕️") + fmt.Sprintf("%d changed, not significant", c.Count(compare.Changed)),
		e("⬆️") + plural(c.Count(compare.Improvement), "improvement", "improvements"),
		fmt.Sprintf("%s%d added", e("🆕"), added),
		fmt.Sprintf("%s%d removed", e("➖"), removed),
	}
	delta, alpha := "mean Δ", "α"
	if !md { // the terminal table keeps to ASCII words
		delta, alpha = "mean delta", "alpha"
	}
	return strings.Join(parts, " · ") + fmt.Sprintf(" · %s %s over %s (family-wise %s %s, Holm)",
		delta, signed(c.MeanDelta), plural(c.Comparable, "test", "tests"), alpha, pval(c.Alpha))
}

// pooledLine is the suite-level test: "pooled over 12 tests (exact stratified CMH): p 0.004,
// adjusted 0.008, significant".
func pooledLine(p *compare.Pooled) string {
	verdict := "not significant"
	if p.Significant {
		verdict = "significant"
	}
	return fmt.Sprintf("pooled over %d tests (%s): p %s, adjusted %s, %s", p.Tests, methodName(p.Method),
		pval(p.P), pval(p.PAdjusted), verdict)
}

// methodName is how the reports name a test's method.
func methodName(m string) string {
	switch m {
	case compare.MethodBoschloo:
		return "Boschloo exact"
	case compare.MethodPermutation:
		return "exact permutation"
	case compare.MethodPermutationMC:
		return fmt.Sprintf("permutation, %d draws", stats.PermutationResamples)
	case compare.MethodStratifiedExact:
		return "exact stratified CMH"
	case compare.MethodStratifiedPermutation:
		return fmt.Sprintf("stratified permutation, %d draws", stats.PermutationResamples)
	}
	return m
}

// pval formats a p-value to two significant figures ("0.25", "0.004", "0.012"), "1.00"
// near 1, "< 0.0001" below that.
func pval(p float64) string {
	switch {
	case p >= 0.995:
		return "1.00"
	case p < 0.0001:
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// evidence is what a listed change rests on: "-0.90, 95 % CI [-0.98, -0.26]; 10 vs 3 trials,
// Boschloo exact p 0.004, adjusted 0.014" and, for a drop that is not significant, how many
// trials would decide it.
func evidence(d *compare.TestDelta) string {
	if d.Delta == nil {
		return ""
	}
	s := signed(*d.Delta)
	if d.CILow != nil && d.CIHigh != nil {
		s += ", 95 % CI [" + signed(*d.CILow) + ", " + signed(*d.CIHigh) + "]"
	}
	if d.Method == "" || d.P == nil || d.PAdjusted == nil {
		return s
	}
	s += fmt.Sprintf("; %d vs %d %s, %s p %s, adjusted %s", d.BaseN, d.HeadN, plural1(d.HeadN, "trial", "trials"),
		methodName(d.Method), pval(*d.P), pval(*d.PAdjusted))
	switch {
	case d.NeedsTrials > 0:
		s += fmt.Sprintf("; a drop this size needs ≈ %d trials per side", d.NeedsTrials)
	case d.NeedsTrials < 0:
		s += fmt.Sprintf("; a drop this size needs more than %d trials per side", compare.MaxTrials)
	}
	return s
}

// plural1 is the noun alone for n.
func plural1(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

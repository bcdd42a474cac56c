package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// ComparisonFormats are the formats WriteComparison writes.
var ComparisonFormats = []string{"table", "markdown", "json"}

// ComparisonInfo names the two sides of a comparison for its header.
type ComparisonInfo struct {
	Base, Head string
}

// compareTally is AgentV's compare summary: a test whose score rose by at least the threshold is a
// win, one that fell by at least it a loss, the others ties (only tests on both sides count).
type compareTally struct {
	Wins      int     `json:"wins"`
	Losses    int     `json:"losses"`
	Ties      int     `json:"ties"`
	MeanDelta float64 `json:"mean_delta"`
}

// tallied counts c's tests as AgentV's compare does, at c's noise threshold.
func tallied(c *compare.Comparison) compareTally {
	const eps = 1e-9
	t := compareTally{MeanDelta: c.MeanDelta}
	for _, d := range c.Tests {
		if d.Delta == nil {
			continue
		}
		switch {
		case *d.Delta >= c.Noise-eps:
			t.Wins++
		case *d.Delta <= -c.Noise+eps:
			t.Losses++
		default:
			t.Ties++
		}
	}
	return t
}

// WriteComparison writes c (a head run measured against a base run, as the gate measures it)
// as format: "table" for a terminal, "markdown", or "json".
func WriteComparison(w io.Writer, c *compare.Comparison, info ComparisonInfo, format string) error {
	ew := &errWriter{w: w}
	switch format {
	case "json":
		writeComparisonJSON(ew, c, info)
	case "markdown":
		writeComparisonMarkdown(ew, c, info)
	case "table", "":
		writeComparisonTable(ew, c, info)
	default:
		return fmt.Errorf("comparison format %q; formats: %s", format, strings.Join(ComparisonFormats, ", "))
	}
	return ew.err
}

func writeComparisonJSON(w io.Writer, c *compare.Comparison, info ComparisonInfo) {
	doc := struct {
		Base             string              `json:"base"`
		Head             string              `json:"head"`
		Threshold        float64             `json:"threshold"`
		Summary          compareTally        `json:"summary"`
		Regressions      int                 `json:"regressions"`
		PooledRegression bool                `json:"pooled_regression"`
		Comparison       *compare.Comparison `json:"comparison"`
	}{info.Base, info.Head, c.Noise, tallied(c), c.Regressions(), c.PooledRegression(), c}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(doc) // errWriter keeps a write error; the value always encodes
}

// side is one side of a test in the listing: "pass 0.92", "-" when absent.
func side(v result.Verdict, score float64) string {
	if v == "" {
		return "-"
	}
	if v == result.Error || v == result.Skip {
		return string(v)
	}
	return fmt.Sprintf("%s %.2f", v, finite(score))
}

func deltaText(d *float64) string {
	if d == nil {
		return "-"
	}
	return signed(*d)
}

func padjText(p *float64) string {
	if p == nil {
		return "-"
	}
	return pval(*p)
}

func writeComparisonTable(w io.Writer, c *compare.Comparison, info ComparisonInfo) {
	fmt.Fprintf(w, "base %s (mean %.2f) · head %s (mean %.2f)\n", termText(info.Base, 200), finite(c.BaseScore),
		termText(info.Head, 200), finite(c.HeadScore))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUITE\tTEST\tBASE\tHEAD\tDELTA\tP-ADJ\tCHANGE")
	for _, d := range c.Tests {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termText(d.Suite, 40), termText(d.ID, 60), side(d.Base, d.BaseScore),
			side(d.Head, d.HeadScore), deltaText(d.Delta), padjText(d.PAdjusted), d.Change)
	}
	_ = tw.Flush() // errWriter keeps the error
	fmt.Fprintln(w)
	writeComparisonFooter(w, c, false)
}

func writeComparisonMarkdown(w io.Writer, c *compare.Comparison, info ComparisonInfo) {
	fmt.Fprintf(w, "### evalgate compare\n\nbase %s (mean %.2f) · head %s (mean %.2f)\n\n", codeSpan(info.Base, false),
		finite(c.BaseScore), codeSpan(info.Head, false), finite(c.HeadScore))
	fmt.Fprintln(w, "| suite | test | base | head | Δ | p (adjusted) | change |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---|")
	for _, d := range c.Tests {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", mdText(d.Suite), mdText(d.ID), side(d.Base, d.BaseScore),
			side(d.Head, d.HeadScore), deltaText(d.Delta), padjText(d.PAdjusted), d.Change)
	}
	fmt.Fprintln(w)
	writeComparisonFooter(w, c, true)
}

// writeComparisonFooter is the summary under the listing: the gate's line, the pooled test,
// AgentV's tally, each significant regression with its evidence, and the warnings.
func writeComparisonFooter(w io.Writer, c *compare.Comparison, md bool) {
	bullet, text := "", func(s string) string { return termText(s, 400) }
	if md {
		bullet, text = "- ", mdText
	}
	fmt.Fprintln(w, bullet+compareSummary(c, md))
	if c.Pooled != nil {
		fmt.Fprintln(w, bullet+pooledLine(c.Pooled))
	}
	t := tallied(c)
	fmt.Fprintf(w, "%s%s · %s · %s at threshold %s (AgentV's tally)\n", bullet, plural(t.Wins, "win", "wins"),
		plural(t.Losses, "loss", "losses"), plural(t.Ties, "tie", "ties"), trim2(c.Noise))
	for _, d := range c.Tests {
		if d.Change == compare.Regression {
			fmt.Fprintf(w, "%sregression %s/%s: %s\n", bullet, text(d.Suite), text(d.ID), evidence(d))
		}
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", bullet, text(warn))
	}
}

// trim2 formats a threshold without trailing zeros ("0.1", "0.25").
func trim2(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

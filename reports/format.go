package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
)

// emoji is the verdict's mark in Markdown reports.
func emoji(v result.Verdict) string {
	switch v {
	case result.Pass:
		return "✅"
	case result.Borderline:
		return "🟡"
	case result.Fail:
		return "❌"
	case result.Error:
		return "💥"
	case result.Skip:
		return "⏭️"
	}
	return "⚪"
}

// verdictWord names a verdict for people; an unknown verdict is shown as such, never as a pass.
func verdictWord(v result.Verdict) string {
	switch v {
	case result.Pass, result.Borderline, result.Fail, result.Error, result.Skip:
		return string(v)
	case "":
		return "none"
	}
	return "unknown"
}

// finite maps NaN and ±Inf (a broken grader's output) to 0 so JSON stays valid.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// score formats a score in [0, 1] with two decimals, truncated, never rounded up: 0.797 is
// "0.79", so a score below a pass line of 0.80 never shows as "0.80" beside "pass ≥ 0.80" (and
// 0.999 is not "1.00"). The epsilon keeps float noise (0.8 as 0.79999…) from dropping a
// hundredth.
func score(f float64) string {
	f = finite(f)
	t := math.Floor(math.Abs(f)*100+1e-9) / 100
	if f < 0 {
		t = -t
	}
	return strconv.FormatFloat(t, 'f', 2, 64)
}

// weight formats a weight compactly ("1", "2", "0.5").
func weight(f float64) string { return strconv.FormatFloat(finite(f), 'g', 4, 64) }

// signed formats a delta with an explicit sign ("+0.15", "-0.30", "±0.00").
func signed(f float64) string {
	f = finite(f)
	switch {
	case f >= 0.005:
		// A delta is no verdict: it rounds.
		return "+" + strconv.FormatFloat(f, 'f', 2, 64)
	case f <= -0.005:
		return "-" + strconv.FormatFloat(-f, 'f', 2, 64)
	}
	return "±0.00"
}

// thousands formats n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// cost formats US dollars: four decimals under a dollar, two above.
func cost(usd float64) string {
	usd = finite(usd)
	if usd < 1 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// duration formats milliseconds for people ("850ms", "12.3s", "4m 05s").
func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms < 0:
		return "0ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// usageText summarises tokens and cost with the judge's share ("12,345 tokens (judge 2,000)
// · $0.0421 (judge $0.0100)"), "" when nothing is known.
func usageText(u result.Usage) string {
	tokens := u.InputTokens + u.OutputTokens
	var parts []string
	if tokens > 0 {
		s := thousands(tokens) + " tokens"
		if j := u.Judge; j != nil && j.InputTokens+j.OutputTokens > 0 && j.InputTokens+j.OutputTokens < tokens {
			s += " (judge " + thousands(j.InputTokens+j.OutputTokens) + ")"
		}
		parts = append(parts, s)
	}
	if u.CostUSD > 0 {
		s := cost(u.CostUSD)
		if j := u.Judge; j != nil && j.CostUSD > 0 && j.CostUSD < u.CostUSD {
			s += " (judge " + cost(j.CostUSD) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

// budgetText says what a spending limit did, "" when there was none or it was not reached.
func budgetText(b *result.Budget) string {
	if b == nil || b.NotRun == 0 {
		return ""
	}
	return fmt.Sprintf("budget %s spent (%s): %s not run", cost(b.LimitUSD), cost(b.SpentUSD), plural(b.NotRun, "test", "tests"))
}

// barWidth is the number of cells in a score bar.
const barWidth = 8

// bar draws a score in [0, 1] as Unicode blocks with eighth-cell resolution, padded with light
// shade so bars line up: bar(0.56) = "████▌░░░". Block elements render in every GitHub font.
func bar(f float64) string {
	f = math.Min(math.Max(finite(f), 0), 1)
	eighths := int(math.Round(f * barWidth * 8))
	full, part := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	cells := full
	if part > 0 {
		b.WriteString([]string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}[part])
		cells++
	}
	b.WriteString(strings.Repeat("░", barWidth-cells))
	return b.String()
}

// shortSHA is the first 7 characters of a commit id, sanitized.
func shortSHA(sha string) string { return safetext.Truncate(oneLine(sha), 7) }

// plural returns "1 test" / "2 tests".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func isScored(v result.Verdict) bool {
	return v == result.Pass || v == result.Borderline || v == result.Fail
}

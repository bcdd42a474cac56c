package reports

import (
	"strings"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
)

// Layout of the terminal table.
const (
	colGap         = 2  // spaces between columns
	minReason      = 50 // with less room than this, reasons go on lines of their own
	minTextCol     = 10 // SUITE, TEST and CRITERION shrink no narrower
	reasonIndent   = 4  // indent of a reason on lines of its own
	maxReasonLines = 3  // a reason wraps onto at most this many lines
)

// shrinkable are the columns that give up width to fit a terminal: SUITE, TEST, CRITERION.
var shrinkable = []int{0, 1, 2}

// tableLayout places the rows: column widths, and where and how wide reasons go.
type tableLayout struct {
	rows        []tableRow
	widths      []int // every column but REASON
	reasonBytes int
	// below puts reasons on lines of their own under their row; reasonWidth is the runes
	// per reason line (0 = one line, no limit).
	below       bool
	reasonWidth int
}

func layTable(rows []tableRow, reasonBytes, width int) *tableLayout {
	n := len(rows[0].cells) - 1
	natural := make([]int, n)
	for _, r := range rows {
		for i := range natural {
			natural[i] = max(natural[i], utf8.RuneCountInString(r.cells[i]))
		}
	}
	l := &tableLayout{rows: rows, widths: natural, reasonBytes: reasonBytes}
	if width <= 0 {
		return l
	}
	// Reasons beside their row when the text columns can make room, else below it.
	if w, ok := shrink(natural, width-minReason); ok {
		l.widths, l.reasonWidth = w, width-prefixWidth(w)
		return l
	}
	l.widths, _ = shrink(natural, width+colGap) // the last column needs no gap after it
	l.below, l.reasonWidth = true, max(width-reasonIndent, minTextCol)
	return l
}

// prefixWidth is the width of the columns before REASON, gaps included.
func prefixWidth(widths []int) int {
	sum := 0
	for _, w := range widths {
		sum += w + colGap
	}
	return sum
}

// shrink narrows the widest shrinkable column, one rune at a time, until the columns fit in
// limit; ok is false when they cannot.
func shrink(natural []int, limit int) (widths []int, ok bool) {
	widths = append([]int(nil), natural...)
	for prefixWidth(widths) > limit {
		widest := -1
		for _, i := range shrinkable {
			if widths[i] > minTextCol && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return widths, false
		}
		widths[widest]--
	}
	return widths, true
}

// lines renders the table, colouring VERDICT cells with color.
func (l *tableLayout) lines(color func(result.Verdict, string) string) []string {
	var out []string
	verdictCol := len(l.widths) - 1
	cont := strings.Repeat(" ", prefixWidth(l.widths))
	if l.below {
		cont = strings.Repeat(" ", reasonIndent)
	}
	for _, r := range l.rows {
		var b strings.Builder
		for i, w := range l.widths {
			cell := fitCell(r.cells[i], w)
			pad := strings.Repeat(" ", w-utf8.RuneCountInString(cell)+colGap)
			if i == verdictCol && !r.header {
				cell = color(r.verdict, cell)
			}
			b.WriteString(cell + pad)
		}
		reason := r.cells[len(r.cells)-1]
		var rest []string
		switch {
		case r.header && !l.below:
			b.WriteString(reason)
		case !r.header:
			rest = l.reasonLines(reason)
			if !l.below && len(rest) > 0 {
				b.WriteString(rest[0])
				rest = rest[1:]
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		for _, x := range rest {
			out = append(out, cont+x)
		}
	}
	return out
}

// reasonLines cuts a reason to the byte budget, then wraps it to the reason width, eliding
// its middle until it fits in maxReasonLines.
func (l *tableLayout) reasonLines(s string) []string {
	if s == "" {
		return nil
	}
	s = elideBytes(s, l.reasonBytes)
	if l.reasonWidth <= 0 {
		return []string{s}
	}
	for budget := maxReasonLines * l.reasonWidth; ; budget -= l.reasonWidth / 2 {
		lines := wrap(elideRunes(s, budget), l.reasonWidth)
		if len(lines) <= maxReasonLines || budget <= l.reasonWidth {
			return lines[:min(len(lines), maxReasonLines)]
		}
	}
}

// fitCell cuts a cell to w runes, marking the cut with "…".
func fitCell(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	return safetext.TruncateRunes(s, w-1) + "…"
}

// elideBytes shortens s to at most max bytes by cutting its middle: an error's context is at
// its start and its cause at its end.
func elideBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return elideRunes(s, utf8.RuneCountInString(safetext.Truncate(s, max)))
}

// elideRunes shortens s to at most max runes by replacing its middle with "…", cutting at
// spaces when one is near.
func elideRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	if max < 3 {
		return string(r[:max])
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	h := string(r[:head])
	t := string(r[len(r)-tail:])
	if i := strings.LastIndexByte(h, ' '); i > len(h)*3/4 {
		h = h[:i+1]
	}
	if i := strings.IndexByte(t, ' '); i >= 0 && i < len(t)/4 {
		t = t[i:]
	}
	return h + "…" + t
}

// wrap breaks s into lines of at most w runes at spaces, splitting longer words.
func wrap(s string, w int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for utf8.RuneCountInString(word) > w {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			r := []rune(word)
			lines, word = append(lines, string(r[:w])), string(r[w:])
		}
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= w:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// fitParts joins parts with sep into lines of at most width runes (one line when width is 0).
func fitParts(parts []string, sep string, width int) []string {
	if width <= 0 {
		return []string{strings.Join(parts, sep)}
	}
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case utf8.RuneCountInString(line+sep+p) <= width:
			line += sep + p
		default:
			lines, line = append(lines, line), p
		}
	}
	return append(lines, line)
}

package reports

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/safetext"
)

// Everything a model, an agent or an eval file wrote is untrusted here: it may try to drive a
// terminal, break a Markdown table, close our <details>, inject a link or an image, ping people,
// or forge the hidden marker the sticky-comment finder looks for. The helpers below are the only
// way such text enters a report; each names the context it is safe for.

// zwsp is the zero-width space put after "@" so "@user" renders but notifies nobody (the same
// trick Renovate uses). It is written as an entity so the defusal stays visible in the source.
const zwsp = "&#8203;"

// sanitize makes text printable: invalid UTF-8 becomes U+FFFD, CR/CRLF become LF, ANSI escape
// sequences (CSI, OSC, DCS, …) are removed whole, and other C0/C1 controls, DEL and the Unicode
// bidi controls (which can reorder what a reader sees) are dropped. Newlines and tabs survive.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == '\x1b':
			i = skipEscape(s, i+1)
			continue
		case r == '\u009b': // C1 CSI
			i = skipCSI(s, i+n)
			continue
		case r == '\u009d', r == '\u0090', r == '\u0098', r == '\u009e', r == '\u009f': // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i+n)
			continue
		case r == '\r':
			b.WriteByte('\n')
			if strings.HasPrefix(s[i+n:], "\n") {
				n++
			}
		case r == '\n', r == '\t':
			b.WriteRune(r)
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, isBidi(r):
			// dropped
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// skipEscape returns the index after the escape sequence whose ESC ended at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// Two-byte sequences (ESC c, ESC 7, …): drop the final byte too, if printable ASCII.
	if s[i] >= 0x20 && s[i] < 0x7f {
		return i + 1
	}
	return i
}

// skipCSI skips CSI parameters and intermediates up to and including the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		i++
		if c >= 0x40 && c <= 0x7e {
			return i
		}
		if c < 0x20 || c > 0x7e {
			return i - 1 // malformed: stop before the stray byte, which is handled as text
		}
	}
	return i
}

// skipString skips an OSC/DCS-style string up to BEL, ESC \ or C1 ST (or the end).
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == '\a':
			return i + 1
		case s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

// isBidi reports the Unicode bidirectional formatting characters ("Trojan Source").
func isBidi(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// oneLine sanitizes s and collapses every run of whitespace (newlines included) to one space.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(sanitize(s), unicode.IsSpace), " ")
}

// truncate shortens s to at most max bytes without splitting a rune, marking a cut with "…".
func truncate(s string, max int) string { return safetext.TruncateMark(s, max, "…") }

// clip is oneLine then truncate: the usual treatment of untrusted text in a cell.
func clip(s string, max int) string { return truncate(oneLine(s), max) }

// mdText escapes text for inline Markdown (table cells, list items, headings): Markdown
// punctuation that could start emphasis, code, links, images, strike-through or math gets a
// backslash ("|" too, which GFM tables honour even inside other spans), "<", ">" and "&" become
// entities so no tag, autolink or comment (our marker) can open, "@name" is defused, and
// newlines become spaces. Issue references (#123) and bare URLs are left alone: they are harmless.
func mdText(s string) string { return mdEscape(sanitize(s), " ") }

// mdLines is mdText keeping line breaks as <br>, for multi-line text (judge reasoning) that
// must stay in one Markdown block so it cannot start a heading, list, quote or fence.
func mdLines(s string) string {
	return mdEscape(strings.TrimSpace(sanitize(s)), "<br>")
}

func mdEscape(s, newline string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n':
			b.WriteString(newline)
		case '\t':
			b.WriteByte(' ')
		case '@':
			b.WriteByte('@')
			if i+1 < len(s) && isMentionStart(s[i+1]) {
				b.WriteString(zwsp)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isMentionStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// htmlText escapes one line of text for an HTML context (a <summary>, where Markdown is not
// parsed but mentions still are): &, <, >, quotes become entities and "@name" is defused.
func htmlText(s string) string {
	s = oneLine(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		case '@':
			b.WriteByte('@')
			if i+1 < len(s) && isMentionStart(s[i+1]) {
				b.WriteString(zwsp)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// defuseComment breaks "<!--" with a zero-width space where entities are not decoded (code
// spans, fences): the text reads the same, but a raw-body search for our marker cannot match
// anything a model wrote.
func defuseComment(s string) string {
	return strings.ReplaceAll(s, "<!--", "<!\u200b--")
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// codeSpan renders one line of text as an inline code span, delimited by more backticks than
// the longest run inside. In a table cell (inTable) "|" is escaped as GFM requires even inside
// code; elsewhere a backslash would show, so it is not.
func codeSpan(s string, inTable bool) string {
	s = defuseComment(oneLine(s))
	if s == "" {
		return "*(empty)*"
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced renders text as a fenced code block at column 0, with a fence longer than any
// backtick run inside (so nothing inside can close it) and a closing fence always present.
// Nothing in a code block is parsed, so only the marker needs defusing.
func fenced(s, info string) string {
	s = defuseComment(sanitize(s))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + info + "\n" + s + fence + "\n"
}

// normalizeMarker returns m as one well-formed HTML comment on one line: an m that already is
// one is kept; anything else is wrapped, with "--" and line breaks removed, so a caller's
// marker can never leave an open comment that swallows the report.
func normalizeMarker(m string) string {
	m = oneLine(m)
	if m == "" {
		return ""
	}
	if strings.HasPrefix(m, "<!--") && strings.HasSuffix(m, "-->") && len(m) >= 7 {
		inner := m[4 : len(m)-3]
		if !strings.Contains(inner, "--") && !strings.Contains(inner, ">") {
			return m
		}
		m = inner
	}
	for strings.Contains(m, "--") {
		m = strings.ReplaceAll(m, "--", "-")
	}
	m = strings.NewReplacer(">", "", "<", "", "!", "").Replace(m)
	return "<!-- " + strings.TrimSpace(m) + " -->"
}

// safeURL returns u when it is an absolute http(s) URL that cannot break out of a Markdown link
// destination, and "" otherwise (the link is then left out rather than rendered unsafely).
func safeURL(u string) string {
	u = strings.TrimSpace(u)
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return ""
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>[]\"'`\\|", c) >= 0 {
			return ""
		}
	}
	return u
}

// termText makes untrusted text safe and readable on a terminal: sanitized (no escape
// sequences reach the terminal), on one line, at most max bytes.
func termText(s string, max int) string { return clip(s, max) }

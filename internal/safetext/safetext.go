// Package safetext makes text from the repository, agents and models safe to put on one of
// evalgate's own output lines: the Actions runner reads any line that starts with "::" as a
// workflow command (::add-mask::, ::error:: …), so such text must not be able to start a line;
// it also obeys the legacy form ##[command] anywhere in a line, which NoCommands (for whole
// lines, through a LineWriter) breaks.
// It also holds the one way to cut text to a limit (Truncate and its variants) without leaving
// half a character behind.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
)

// OneLine escapes line breaks and other control characters (\n, \r, \u001b …), so s cannot
// start a new line of its own (the runner splits on CR and LF) or drive a terminal.
func OneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

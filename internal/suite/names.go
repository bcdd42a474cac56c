package suite

import (
	"unicode"

	"gopkg.in/yaml.v3"
)

// containsControl reports whether s holds a character that can break a log line or hide
// text: control characters (newlines included: a test id with "\n::add-mask::…" would be a
// workflow command), Unicode line and paragraph separators, and bidirectional overrides.
func containsControl(s string) bool {
	for _, c := range s {
		switch {
		case unicode.IsControl(c), c == '\u2028', c == '\u2029',
			c >= '\u202a' && c <= '\u202e', c >= '\u2066' && c <= '\u2069',
			c == '\u200e', c == '\u200f', c == '\u061c':
			return true
		}
	}
	return false
}

// checkName reports a name that is printed in logs, comments and check runs (a suite name,
// a test, criterion or grader id) when it holds a control character; ok is false then.
func (d *decoder) checkName(n *yaml.Node, what, name string) bool {
	if !containsControl(name) {
		return true
	}
	d.errorf(n, "%s %+q contains a line break or control character; names are printed in logs and comments", what, name)
	return false
}

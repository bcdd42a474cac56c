package workspace

import (
	"strings"
	"unicode"

	"github.com/evalgate/evalgate/internal/safetext"
)

// tailBuffer keeps the last max bytes written: a failing hook's last words are what explain it.
type tailBuffer struct {
	buf []byte
	max int
}

// Write always accepts everything, so a chatty hook never blocks on a full pipe.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Bytes returns what was kept.
func (t *tailBuffer) Bytes() []byte { return t.buf }

// Limits of the output quoted in a hook error: enough to explain it, short enough to read.
const (
	tailLines = 10
	tailBytes = 1000
)

// tail is the last lines of a hook's output, control characters removed, for error messages.
func tail(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > tailBytes {
		out = "…" + safetext.TruncateStart(out, tailBytes)
	}
	return out
}

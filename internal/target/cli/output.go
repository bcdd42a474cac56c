package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/evalgate/evalgate/internal/safetext"
)

// capped keeps the first max bytes written and counts the rest. The buffer is a named field,
// not embedded: an embedded bytes.Buffer would promote ReadFrom, and io.Copy would use it and
// bypass the cap.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		n := min(room, len(p))
		c.buf.Write(p[:n])
		c.dropped += len(p) - n
	} else {
		c.dropped += len(p)
	}
	return len(p), nil // always accept: the agent must never block on a full pipe
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }

// readCapped reads an output file of at most MaxOutput bytes; a larger one is ErrTooBig, not
// silently cut (a cut JSON file would read as "invalid JSON", a cut text as a shorter answer).
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxOutput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxOutput {
		return nil, ErrTooBig
	}
	return b, nil
}

// tail is the last lines of an agent's stderr, control characters removed, for error messages.
func tail(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, string(b))
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	out := strings.Join(lines, " | ")
	return safetext.TruncateStart(out, 500)
}

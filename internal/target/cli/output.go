package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/target"
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

// readCapped reads an output file of at most maxOutput bytes; a larger one is errTooBig, not
// silently cut (a cut JSON file would read as "invalid JSON", a cut text as a shorter answer).
func readCapped(dir *os.Root, name string) ([]byte, error) {
	// Through the directory opened before the agent ran: a link the agent put there (or a
	// directory it swapped in) cannot make evalgate read a file outside it.
	// Stat before Open: opening a named pipe the agent left there would block for good (its
	// writers are dead), and the test's timeout no longer runs.
	if fi, err := dir.Stat(name); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxOutput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxOutput {
		return nil, errTooBig
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

// scratch makes the directory of one run's prompt and output files: in the TMPDIR of the user
// the agent runs as, written by evalgate first and then handed to that user. It returns the
// directory and a handle to it that the agent cannot redirect.
func scratch(req *target.Request) (string, *os.Root, error) {
	parent := ""
	if req.User != nil {
		parent = req.User.Tmp
	}
	tmp, err := os.MkdirTemp(parent, "evalgate-cli-")
	if err != nil {
		return "", nil, err
	}
	root, err := os.OpenRoot(tmp)
	if err == nil {
		err = root.WriteFile("prompt.md", []byte(req.Prompt), 0o600)
	}
	if err == nil {
		err = req.User.Own(tmp)
	}
	if err != nil {
		if root != nil {
			root.Close()
		}
		os.RemoveAll(tmp)
		return "", nil, err
	}
	return tmp, root, nil
}

package safetext

import (
	"bytes"
	"io"
	"sync"
)

// LineWriter passes each complete line written through it to a filter before writing it on:
// a filter sees whole lines, so a secret or a workflow command split across writes is still
// seen whole. A partial last line waits for Flush. It is safe for concurrent use.
type LineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	filter func(string) string
	buf    []byte
}

// Lines returns a LineWriter that writes filter(line) to w for every line.
func Lines(w io.Writer, filter func(string) string) *LineWriter {
	return &LineWriter{w: w, filter: filter}
}

// Write buffers p and writes out every line it completes.
func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	i := bytes.LastIndexByte(l.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	var out []byte
	for _, line := range bytes.SplitAfter(l.buf[:i+1], []byte("\n")) {
		if len(line) > 0 {
			out = append(out, l.filter(string(line))...)
		}
	}
	l.buf = append(l.buf[:0], l.buf[i+1:]...)
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out a partial last line.
func (l *LineWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flush()
}

func (l *LineWriter) flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	s := l.filter(string(l.buf))
	l.buf = l.buf[:0]
	_, err := io.WriteString(l.w, s)
	return err
}

// Command writes line, one of evalgate's own workflow commands, past the filter (after
// what is pending), and past every LineWriter under this one.
func (l *LineWriter) Command(line string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		// A command must start its own line.
		l.buf = append(l.buf, '\n')
		if err := l.flush(); err != nil {
			return err
		}
	}
	return command(l.w, line)
}

// command writes line (and a line break) to w as one of evalgate's own workflow commands
// (::stop-commands::, ::add-mask::): unfiltered when w is a LineWriter, or wraps one.
func command(w io.Writer, line string) error {
	if c, ok := w.(interface{ Command(string) error }); ok {
		return c.Command(line)
	}
	_, err := io.WriteString(w, line+"\n")
	return err
}

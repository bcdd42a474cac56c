// Package jsonl reads JSON Lines files (recorded outputs, recorded judge replies) row by row,
// with errors that name the file and line.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// maxLine is the longest row read: recorded outputs carry whole diffs and transcripts.
const maxLine = 64 << 20

// Each decodes every non-blank line of data into a new T and passes it to fn with its 1-based
// line number. A line that is not valid JSON, or an error from fn, stops the read with an
// error naming path:line.
func Each[T any](data []byte, path string, fn func(line int, row *T) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		row := new(T)
		if err := json.Unmarshal(text, row); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err := fn(line, row); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

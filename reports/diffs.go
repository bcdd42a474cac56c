package reports

import (
	"crypto/sha256"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/redact"
)

// DirDiffs is the report directory's subdirectory for whole diffs.
const DirDiffs = "diffs"

// DiffFiles returns a function that writes the whole diff of a test, whose result keeps only
// its start, to dir/diffs/ (scrubbed, and confined to root as WriteAll's files are) and returns
// the file's path relative to dir. It suits engine.Config.KeepDiff.
func DiffFiles(dir, root string, scrub *redact.Redactor) func(suite, test, diff string) (string, error) {
	return func(suite, test, diff string) (string, error) {
		fsys, err := openDir(filepath.Join(dir, DirDiffs), root)
		if err != nil {
			return "", fmt.Errorf("diff dir: %w", err)
		}
		defer fsys.Close()
		name := diffName(suite, test)
		if err := writeAtomic(fsys, name, scrub, func(w io.Writer) error { return writeChunks(w, diff) }); err != nil {
			return "", err
		}
		return DirDiffs + "/" + name, nil
	}
}

// diffName is a file name for a test's diff: its suite and id with anything but letters,
// digits, '-', '_' and '.' replaced, and a hash of both, so two tests never share a file.
func diffName(suite, test string) string {
	sum := sha256.Sum256([]byte(suite + "\x00" + test))
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, clip(suite+"--"+test, 80))
	return fmt.Sprintf("%s-%x.diff", strings.TrimLeft(base, "."), sum[:4])
}

// writeChunks writes s in pieces, so a scrubbing writer never holds a copy of all of it.
func writeChunks(w io.Writer, s string) error {
	const chunk = 64 << 10
	for len(s) > 0 {
		n := min(len(s), chunk)
		if _, err := io.WriteString(w, s[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

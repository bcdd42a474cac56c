package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/result"
)

// Report file names, as WriteAll writes them.
const (
	FileComment  = "comment.md"
	FileSummary  = "summary.md"
	FileCheckRun = "check-run.json"
	FileResults  = "results.json"
	FileIndex    = "index.jsonl"
	FileJUnit    = "junit.xml"
)

// FilesOptions shape the files WriteAll renders.
type FilesOptions struct {
	Comment CommentOptions
	Summary SummaryOptions
	Check   CheckOptions
	JUnit   JUnitOptions
}

// WriteAll writes every report of run into dir (created if missing): comment.md, summary.md,
// check-run.json (CheckOutput as JSON: the Checks API output object plus the conclusion),
// results.json, index.jsonl and junit.xml. Each file is written to a temporary file and
// renamed, so a reader never sees half a report. A file that fails does not stop the others;
// the errors are joined.
func WriteAll(dir string, run *result.Run, opts FilesOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	var errs []error
	write := func(name string, render func(*bytes.Buffer) error) {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		if err := writeAtomic(filepath.Join(dir, name), buf.Bytes()); err != nil {
			errs = append(errs, err)
		}
	}
	write(FileComment, func(b *bytes.Buffer) error { _, err := b.WriteString(Comment(run, opts.Comment)); return err })
	write(FileSummary, func(b *bytes.Buffer) error { _, err := b.WriteString(StepSummary(run, opts.Summary)); return err })
	write(FileCheckRun, func(b *bytes.Buffer) error {
		enc := json.NewEncoder(b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(CheckRun(run, opts.Check))
	})
	write(FileResults, func(b *bytes.Buffer) error { return WriteResults(b, run) })
	write(FileIndex, func(b *bytes.Buffer) error { return WriteIndex(b, run) })
	write(FileJUnit, func(b *bytes.Buffer) error { return WriteJUnit(b, run, opts.JUnit) })
	return errors.Join(errs...)
}

// writeAtomic writes data to path through a temporary file in the same directory and a rename.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

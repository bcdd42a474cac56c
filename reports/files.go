package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/redact"
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
	// Root confines the report directory when it lies inside Root (the checked-out
	// repository): every directory and file is then opened through os.Root, so a report
	// directory committed as a symlink cannot send the reports outside the repository.
	Root string
	// Scrub removes credentials from every file before it is written (nil = none).
	Scrub *redact.Redactor
}

// WriteAll writes every report of run into dir (created if missing): comment.md, summary.md,
// check-run.json (CheckOutput as JSON: the Checks API output object plus the conclusion),
// results.json, index.jsonl and junit.xml. Each file is written to a temporary file and
// renamed, so a reader never sees half a report. A file that fails does not stop the others;
// the errors are joined.
func WriteAll(dir string, run *result.Run, opts FilesOptions) error {
	fsys, err := openDir(dir, opts.Root)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	defer fsys.Close()
	var errs []error
	write := func(name string, render func(*bytes.Buffer) error) {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		if err := writeAtomic(fsys, name, opts.Scrub.Bytes(buf.Bytes())); err != nil {
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

// openDir creates dir and returns it as an os.Root. When dir lies inside root, it is created
// and opened through root, so no symlink on the way can lead outside root.
func openDir(dir, root string) (*os.Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if root != "" {
		if root, err = filepath.Abs(root); err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			r, err := os.OpenRoot(root)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			if err := r.MkdirAll(rel, 0o755); err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
			return r.OpenRoot(rel)
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	return os.OpenRoot(abs)
}

// writeAtomic writes data to name in dir through a temporary file and a rename.
func writeAtomic(dir *os.Root, name string, data []byte) (err error) {
	path := filepath.Join(dir.Name(), name)
	tmp := "." + name + ".tmp-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = dir.Remove(tmp)
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
	if err = dir.Rename(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

package reports

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/redact"
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
	// Posted, when set, is the comment, summary and check run as the caller already rendered
	// (and posted) them: they are written as they are, not rendered again.
	Posted *Rendered
	// Root confines the report directory when it lies inside Root (the checked-out
	// repository): every directory and file is then opened through os.Root, so a report
	// directory committed as a symlink cannot send the reports outside the repository.
	Root string
	// Scrub removes credentials from every file before it is written (nil = none).
	Scrub *redact.Redactor
}

// WriteAll writes every report of r into dir (created if missing): comment.md, summary.md,
// check-run.json (CheckOutput as JSON: the Checks API output object plus the conclusion),
// results.json, index.jsonl, junit.xml and report.html. Each file is streamed to a temporary file and
// renamed, so a reader never sees half a report and no report is held whole in memory. A file
// that fails does not stop the others; the errors are joined. Every report compares with the
// baseline r was made with. report.html shows the JUnit options' gate decision, or the
// comment's when that is zero.
func (r *Report) WriteAll(dir string, opts FilesOptions) error {
	fsys, err := openDir(dir, opts.Root)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	defer fsys.Close()
	// The files are independent views of a read-only Report: they are written concurrently.
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]error{}
	write := func(name string, render func(io.Writer) error) {
		wg.Go(func() {
			if err := writeAtomic(fsys, name, opts.Scrub, render); err != nil {
				mu.Lock()
				errs[name] = err
				mu.Unlock()
			}
		})
	}
	posted := opts.Posted
	text := func(render func() string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, render()); return err }
	}
	write(FileComment, text(func() string {
		if posted != nil {
			return posted.Comment
		}
		return r.Comment(opts.Comment)
	}))
	write(FileSummary, text(func() string {
		if posted != nil {
			return posted.Summary
		}
		return r.StepSummary(opts.Summary)
	}))
	write(FileCheckRun, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if posted != nil {
			return enc.Encode(posted.Check)
		}
		return enc.Encode(r.CheckRun(opts.Check))
	})
	write(FileResults, func(w io.Writer) error { return WriteResults(w, r.v.run) })
	write(FileIndex, func(w io.Writer) error { return WriteIndex(w, r.v.run) })
	write(FileJUnit, func(w io.Writer) error { return writeJUnit(w, r.v.run, opts.JUnit) })
	write(FileHTML, func(w io.Writer) error {
		return r.writeHTML(w, cmp.Or(opts.JUnit.Gate, opts.Comment.Gate))
	})
	wg.Wait()
	var all []error
	for _, name := range []string{FileComment, FileSummary, FileCheckRun, FileResults, FileIndex, FileJUnit, FileHTML} {
		all = append(all, errs[name])
	}
	return errors.Join(all...)
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

// writeAtomic streams what render writes, scrubbed, into name in dir through a temporary
// file and a rename.
func writeAtomic(dir *os.Root, name string, scrub *redact.Redactor, render func(io.Writer) error) (err error) {
	path := filepath.Join(dir.Name(), name)
	tmp := "." + name + ".tmp-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = dir.Remove(tmp)
		}
	}()
	// Buffered before the scrubber, so it scans large chunks rather than every small write.
	sw := scrub.Writer(f)
	bw := bufio.NewWriterSize(sw, 64<<10)
	if err = render(bw); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err = bw.Flush(); err == nil {
		err = sw.Close()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err != nil {
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

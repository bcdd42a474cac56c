package reports

import (
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/result"
)

// WriteResultsFile writes only results.json into dir, confined and scrubbed as WriteAll
// writes it. A shard of a matrix writes this alone: it publishes nothing final, so no
// comment, summary, check run or JUnit file is rendered from a part of the run.
func WriteResultsFile(dir string, run *result.Run, opts FilesOptions) error {
	fsys, err := openDir(dir, opts.Root)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	defer fsys.Close()
	return writeAtomic(fsys, FileResults, opts.Scrub, func(w io.Writer) error { return WriteResults(w, run) })
}

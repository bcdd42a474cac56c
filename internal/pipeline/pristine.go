package pipeline

import (
	"fmt"
	"os"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/suite"
)

// pinGraders copies the scripts the suites' graders run out of the checkout, before the
// first agent starts, and makes every grader of the run use that copy (see grader.Pristine).
// The returned cleanup removes the copy once the run is over.
func (w *wiring) pinGraders(suites []*suite.Suite) (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "evalgate-graders-")
	if err != nil {
		return nil, fmt.Errorf("copy the graders: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	p, err := grader.Snapshot(w.Root, dir, suites)
	if err != nil {
		cleanup()
		return nil, err
	}
	for _, msg := range p.Warnings {
		fmt.Fprintf(w.Log, "evalgate: warning: %s\n", msg)
	}
	w.scripts = p
	return cleanup, nil
}

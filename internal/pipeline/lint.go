package pipeline

import (
	"errors"
	"strings"

	"github.com/evalgate/evalgate/internal/suite"
)

// unsetMarker is how every "a ${{ VAR }} is not set" message reads, whichever layer wrote it
// (the targets loader, a provider's settings, a cli command).
const unsetMarker = "is not set (set the "

// lintNote is what validate adds to a problem it downgrades: the file may be right, the
// environment it runs in lacks something.
const lintNote = " — not checked: validate lints the files; run (and validate --strict) needs it"

// envGap reports whether err is the environment's, not the file's: a variable that is not
// set, or no targets file to resolve targets in. validate (without --strict) warns about these
// and checks everything else.
func envGap(err error) bool {
	var ce *configError
	if errors.As(err, &ce) && ce.env {
		return true
	}
	var ds suite.Diagnostics
	if errors.As(err, &ds) {
		n := 0
		for _, d := range ds {
			if d.Severity == suite.Error {
				if !strings.Contains(d.Message, unsetMarker) {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	return strings.Contains(err.Error(), unsetMarker)
}

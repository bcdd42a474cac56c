package suite

import (
	"fmt"
	"strings"
)

// Severity is how bad a diagnostic is.
type Severity int

// Severities: a warning never stops a suite; an error stops the file (or the test) it names.
const (
	Warning Severity = iota
	Error
)

// String returns "warning" or "error".
func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Diagnostic is one problem found while loading, anchored to a position.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Message  string
}

// String renders the diagnostic as "file:line:col: severity: message".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s", d.Pos, d.Severity, d.Message)
}

// Diagnostics is a list of problems; as an error it means "at least one error is in here".
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Error joins the error diagnostics, one per line.
func (ds Diagnostics) Error() string {
	var b strings.Builder
	for _, d := range ds {
		if d.Severity != Error {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

package golden

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}

// Fatalf stops the calling goroutine, as testing's does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = true
	r.errors = append(r.errors, format)
	runtime.Goexit()
}

// check runs Check against a fresh recorder on a goroutine of its own, for Fatalf to end.
func check(t *testing.T, path, got string) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got, false)
	}()
	<-done
	return r
}

func TestCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "out.golden")

	// Missing: a fatal error that says how to create it.
	r := check(t, path, "a\nb\n")
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "-update") {
		t.Fatalf("missing golden: fatal %v, errors %q", r.fatal, r.errors)
	}

	// -update writes it, directories included.
	Check(t, path, "a\nb\n", true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("after -update: %q, %v", b, err)
	}

	// Same output: nothing reported.
	r = check(t, path, "a\nb\n")
	if len(r.errors) != 0 {
		t.Fatalf("equal output reported %q", r.errors)
	}

	// Different output: one error, not fatal, so a test can report several goldens.
	r = check(t, path, "a\nc\n")
	if r.fatal || len(r.errors) != 1 {
		t.Fatalf("changed output: fatal %v, errors %q", r.fatal, r.errors)
	}
}

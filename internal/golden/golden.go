// Package golden checks a test's structured output against a file committed under the
// package's testdata, so a change to the output shows as a diff in review. Tests pass their
// own -update flag; under it the file is rewritten instead.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares got with the file at path, or writes got to path when update is set.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	// A checkout with core.autocrlf gives the file CRLF line ends; got has none.
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; run the test with -update once the change is right):\n%s", path, diff)
	}
}

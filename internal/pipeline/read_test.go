package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/reports"
)

// TestReadRun reads a run from each place evalgate compare accepts one.
func TestReadRun(t *testing.T) {
	t.Parallel()
	run := runOf(1, suiteOf("evals/a.yaml", "a1", "a2"))
	both, index, empty := t.TempDir(), t.TempDir(), t.TempDir()
	if err := reports.WriteResultsFile(both, run, reports.FilesOptions{}); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, render func(*os.File) error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := render(f); err != nil {
			t.Fatal(err)
		}
	}
	write(both, reports.FileIndex, func(f *os.File) error { return reports.WriteIndex(f, run) })
	write(index, reports.FileIndex, func(f *os.File) error { return reports.WriteIndex(f, run) })
	tests := []struct {
		name, path, wantFile, wantErr string
	}{
		{name: "results.json", path: filepath.Join(both, reports.FileResults), wantFile: filepath.Join(both, reports.FileResults)},
		{name: "index.jsonl", path: filepath.Join(index, reports.FileIndex), wantFile: filepath.Join(index, reports.FileIndex)},
		{name: "a directory: results.json first", path: both, wantFile: filepath.Join(both, reports.FileResults)},
		{name: "a directory with an index only", path: index, wantFile: filepath.Join(index, reports.FileIndex)},
		{name: "a directory with neither", path: empty, wantErr: "holds neither results.json nor index.jsonl"},
		{name: "no such file", path: filepath.Join(empty, "nope.json"), wantErr: "nope.json: no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, file, err := ReadRun(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReadRun(%s): %v, want an error with %q", tc.path, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if file != tc.wantFile {
				t.Errorf("read %s, want %s", file, tc.wantFile)
			}
			var ids []string
			for _, s := range got.Suites {
				for _, tr := range s.Tests {
					ids = append(ids, tr.ID)
				}
			}
			if d := cmp.Diff([]string{"a1", "a2"}, ids); d != "" {
				t.Errorf("tests read (-want +got):\n%s", d)
			}
		})
	}
	if _, err := ReadResults(filepath.Join(index, reports.FileIndex)); err == nil || !strings.Contains(err.Error(), reports.FileIndex) {
		t.Errorf("ReadResults of an index.jsonl: %v, want an error naming the file", err)
	}
}

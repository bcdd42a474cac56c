package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJSONLSidecarByRelativePath: a JSONL suite named by a path relative to the working
// directory (evalgate validate --root DIR DIR/evals/x.jsonl) reads its sidecar inside the root.
func TestJSONLSidecarByRelativePath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"evals/d.jsonl": `{"id":"t1","input":"hi","criteria":"says hi"}` + "\n",
		"evals/d.yaml":  "description: from the sidecar\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relRoot, err := filepath.Rel(wd, root)
	if err != nil {
		t.Skipf("no relative path from %s to %s", wd, root)
	}
	tests := []struct{ name, root, path string }{
		{"relative path and root", relRoot, filepath.Join(relRoot, "evals", "d.jsonl")},
		{"relative path, absolute root", root, filepath.Join(relRoot, "evals", "d.jsonl")},
		{"absolute path", root, filepath.Join(root, "evals", "d.jsonl")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ds := Load(tt.path, LoadOptions{Root: tt.root, Getenv: func(string) string { return "" }})
			if ds.HasErrors() || s == nil {
				t.Fatalf("diagnostics: %v", ds)
			}
			if s.Description != "from the sidecar" {
				t.Errorf("description %q: the sidecar was not read", s.Description)
			}
		})
	}
}

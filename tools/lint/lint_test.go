package main

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzersApplyTheConfig runs the wrapped analyzers over testdata/src with
// testdata/.golangci.yml: findings carry their linter's name; exclusion rules (path,
// path-except, text) and //nolint directives (own line, the declaration below, bare, another
// linter's) silence exactly what they cover; a linter the config does not enable is silent,
// and so is a staticcheck check its checks list leaves out.
func TestAnalyzersApplyTheConfig(t *testing.T) {
	t.Parallel()
	dir := analysistest.TestData()
	path, err := filepath.Abs(filepath.Join(dir, configName))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*analysis.Analyzer{}
	for _, a := range analyzers(&path) {
		byName[a.Name] = a
	}
	tests := []struct{ analyzer, pkg string }{
		{"forbidigo", "forbid"},
		{"errorlint", "errs"},
		{"paralleltest", "par"},
		{"ST1003", "par"},
		{"S1002", "simple"},
		{"unused", "unused"},
	}
	for _, tt := range tests {
		t.Run(tt.analyzer, func(t *testing.T) {
			t.Parallel()
			a := byName[tt.analyzer]
			if a == nil {
				t.Fatalf("no analyzer %q", tt.analyzer)
			}
			analysistest.Run(t, dir, a, tt.pkg)
		})
	}
}

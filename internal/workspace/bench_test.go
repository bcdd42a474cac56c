package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
)

// benchTemplate is a template of n small files in a few directories, like a small project.
func benchTemplate(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("pkg%d", i%8), fmt.Sprintf("file%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg\n\nconst N%d = %d\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// edit is what a typical agent does to a workspace: change one file, add one, delete one.
func edit(b *testing.B, dir string) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(dir, "pkg1", "file1.go"), []byte("package pkg\n\nconst N1 = 2\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "pkg2", "file2.go")); err != nil {
		b.Fatal(err)
	}
}

// runTests runs one test per iteration in a workspace of spec: acquire, edit, diff, close.
func runTests(b *testing.B, spec *suite.Workspace) {
	b.Helper()
	m := NewManager(spec, ManagerOptions{Parent: b.TempDir(), RunID: "bench"})
	defer m.Close(b.Context())
	for i := 0; b.Loop(); i++ {
		l, err := m.Acquire(b.Context(), fmt.Sprint("t", i), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		edit(b, l.Dir())
		if d, err := l.Diff(b.Context()); err != nil || d == "" {
			b.Fatalf("diff = %q, %v", d, err)
		}
		if _, err := l.Close(false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPerTestWorkspace is the workspace cost evalgate adds to one test of a per_test
// suite: copy the template, commit the baseline, take the agent's diff, remove it all.
func BenchmarkPerTestWorkspace(b *testing.B) {
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			spec := &suite.Workspace{Template: benchTemplate(b, n)}
			runTests(b, spec)
		})
	}
}

// BenchmarkSharedWorkspaceReset is one test of a shared suite that resets before each test:
// put the files back, commit the baseline, take the diff.
func BenchmarkSharedWorkspaceReset(b *testing.B) {
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			spec := &suite.Workspace{Template: benchTemplate(b, n), Isolation: "shared",
				Hooks: suite.WorkspaceHooks{BeforeEach: &suite.Hook{Reset: "fast"}}}
			runTests(b, spec)
		})
	}
}

package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func template(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"src/calc.py": "def add(a, b):\n    return a + b\n", "old.txt": "rename me\nwith enough\nlines to match\n", "gone.txt": "bye\n", "sub/.git/HEAD": "ref: nested\n"}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("src/calc.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDiffShowsEveryKindOfChange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w, err := prepare(ctx, t.TempDir(), template(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := w.Dir()
	if _, err := os.Stat(filepath.Join(d, "sub", ".git")); err == nil {
		t.Fatal("nested .git was copied")
	}
	if got, err := w.Diff(ctx); err != nil || got != "" {
		t.Fatalf("fresh workspace diff = %q, %v", got, err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(d, "src/calc.py"), []byte("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"), 0o644))
	must(os.WriteFile(filepath.Join(d, "new.md"), []byte("hello\n"), 0o644))
	must(os.Remove(filepath.Join(d, "gone.txt")))
	must(os.Rename(filepath.Join(d, "old.txt"), filepath.Join(d, "renamed.txt")))
	must(os.WriteFile(filepath.Join(d, "logo.bin"), []byte{0, 1, 2, 255}, 0o644))
	diff, err := w.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+def sub(a, b):", "new file mode", "+++ b/new.md", "deleted file mode", "rename from old.txt", "rename to renamed.txt", "Binary files /dev/null and b/logo.bin differ"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if kept, err := w.Close(true); err != nil || kept != d {
		t.Fatalf("keep: %q %v", kept, err)
	}
	if _, err := w.Close(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatal("workspace not removed")
	}
	if kept, _ := w.Close(true); kept != "" {
		t.Fatalf("a deleted workspace reported as kept at %s", kept)
	}
	if _, err := w.Diff(ctx); err == nil {
		t.Fatal("diff of a deleted workspace succeeded")
	}
}

func TestConcurrentWorkspacesStayIndependent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tmpl := template(t)
	var wg sync.WaitGroup
	diffs := make([]string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := prepare(ctx, t.TempDir(), tmpl, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close(false)
			if err := os.WriteFile(filepath.Join(w.Dir(), fmt.Sprintf("agent%d.txt", i)), []byte("mine\n"), 0o644); err != nil {
				t.Error(err)
				return
			}
			diffs[i], err = w.Diff(ctx)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, d := range diffs {
		if strings.Count(d, "diff --git") != 1 || !strings.Contains(d, fmt.Sprintf("agent%d.txt", i)) {
			t.Errorf("workspace %d diff:\n%s", i, d)
		}
	}
}

func TestNestedRepositoriesAreDiffedAsFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w, err := prepare(ctx, t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(false)
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A repository that exists at baseline time (a hook cloned a fixture)…
	fixture := filepath.Join(w.Dir(), "fixture")
	os.MkdirAll(fixture, 0o755)
	os.WriteFile(filepath.Join(fixture, "a.txt"), []byte("one\n"), 0o644)
	gitIn(fixture, "init", "-q")
	gitIn(fixture, "add", "-A")
	gitIn(fixture, "commit", "-qm", "fixture")
	if err := w.baseline(ctx); err != nil {
		t.Fatal(err)
	}
	// …then the agent edits it and clones another.
	os.WriteFile(filepath.Join(fixture, "a.txt"), []byte("one\ntwo\n"), 0o644)
	dep := filepath.Join(w.Dir(), "vendor", "dep")
	os.MkdirAll(dep, 0o755)
	os.WriteFile(filepath.Join(dep, "lib.go"), []byte("package dep\n"), 0o644)
	gitIn(dep, "init", "-q")
	for range 2 { // staging twice must give the same diff and leave both repositories intact
		diff, err := w.Diff(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"+++ b/fixture/a.txt", "+two", "+++ b/vendor/dep/lib.go", "+package dep"} {
			if !strings.Contains(diff, want) {
				t.Errorf("diff lacks %q:\n%s", want, diff)
			}
		}
		if strings.Contains(diff, ".git.evalgate") || strings.Contains(diff, "Subproject") {
			t.Errorf("diff shows repository internals:\n%s", diff)
		}
		for _, d := range []string{fixture, dep} {
			if fi, err := os.Stat(filepath.Join(d, ".git")); err != nil || !fi.IsDir() {
				t.Fatalf("%s/.git not restored: %v", d, err)
			}
		}
	}
}

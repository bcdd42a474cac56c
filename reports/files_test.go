package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/redact"
)

func TestWriteAllStaysInsideRoot(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	root, outside := t.TempDir(), t.TempDir()
	// A report directory committed as a symlink to somewhere else.
	if err := os.MkdirAll(filepath.Join(root, ".evalgate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".evalgate", "report")); err != nil {
		t.Fatal(err)
	}
	err := NewReport(run, nil).WriteAll(filepath.Join(root, ".evalgate", "report"), FilesOptions{Root: root})
	if err == nil {
		t.Fatal("WriteAll followed a symlink out of the repository")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("reports landed outside the repository: %v", entries)
	}

	// A directory inside the root without links, and one outside the root, both work.
	for _, dir := range []string{filepath.Join(root, "out", "report"), filepath.Join(outside, "r")} {
		if err := NewReport(run, nil).WriteAll(dir, FilesOptions{Root: root}); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, name := range []string{FileComment, FileSummary, FileCheckRun, FileResults, FileIndex, FileJUnit} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v", name, fi.Mode().Perm())
			}
		}
	}
}

func TestWriteAllScrubs(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	secret := "sk-test-" + strings.Repeat("9", 20)
	run.Suites[0].Tests[0].ID = "leak-" + secret
	run.Suites[0].Tests[0].Output.Answer = "the key is " + secret
	dir := t.TempDir()
	if err := NewReport(run, nil).WriteAll(dir, FilesOptions{Scrub: redact.New(secret)}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", e.Name())
		}
		if e.Name() == FileResults && !strings.Contains(string(b), "leak-"+redact.Mask) {
			t.Errorf("%s: the masked id is missing", e.Name())
		}
	}
}

func TestDiffFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "report")
	scrub := redact.New()
	scrub.Add("sk-secret-value-1234")
	keep := DiffFiles(dir, root, scrub)
	a, err := keep("suite/../x", "id with spaces\n", "+token sk-secret-value-1234\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := keep("suite/../x", "id with spaces\r", "+other\n")
	if err != nil {
		t.Fatal(err)
	}
	if a == b || !strings.HasPrefix(a, DirDiffs+"/") || strings.ContainsAny(strings.TrimPrefix(a, DirDiffs+"/"), "/ \n\r") {
		t.Fatalf("diff paths %q and %q: want distinct plain names under %s/", a, b, DirDiffs)
	}
	got, err := os.ReadFile(filepath.Join(dir, a))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "sk-secret") || !strings.HasPrefix(string(got), "+token ") {
		t.Fatalf("diff file not scrubbed or not the diff: %q", got)
	}
}

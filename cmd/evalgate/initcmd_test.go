package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitThenRun is the newcomer's first minute: init, then run and validate pass offline.
func TestInitThenRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errOut := invoke(t, "init", dir)
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	for _, f := range initFiles {
		if _, err := os.Stat(filepath.Join(dir, f.Path)); err != nil || !strings.Contains(out, "wrote "+filepath.Join(dir, f.Path)) {
			t.Errorf("init did not write %s (%v):\n%s", f.Path, err, out)
		}
	}
	code, out, errOut = invoke(t, "run", "--root", dir, dir)
	if code != 0 {
		t.Fatalf("run after init: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{"greets-by-name", "uses-name", "pass"} {
		if !strings.Contains(out, w) {
			t.Errorf("run output lacks %q:\n%s", w, out)
		}
	}
	code, out, errOut = invoke(t, "validate", "--root", dir, dir)
	if code != 0 || !strings.Contains(out, "0 errors") {
		t.Fatalf("validate after init: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestInitRefusesToOverwrite: an existing file stops init before it writes anything;
// --force overwrites.
func TestInitRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mine := filepath.Join(dir, "targets.yaml")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := invoke(t, "init", dir)
	if code != 2 || !strings.Contains(errOut, mine+" already exists (--force overwrites)") {
		t.Fatalf("init over a file: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("init changed targets.yaml: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "evals")); !os.IsNotExist(err) {
		t.Errorf("a refused init wrote files: %v", err)
	}
	if code, _, errOut := invoke(t, "init", "--force", dir); code != 0 {
		t.Fatalf("init --force: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(mine); !strings.Contains(string(b), "provider: mock") {
		t.Errorf("init --force kept targets.yaml: %q", b)
	}
}

// TestInitWorkflowIsTheREADMEs keeps the written workflow the one the README shows.
func TestInitWorkflowIsTheREADMEs(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "## Use it in GitHub Actions")
	if i < 0 {
		t.Fatal("README has no workflow section")
	}
	s = s[i:]
	start := strings.Index(s, "```yaml\n") + len("```yaml\n")
	block := s[start : start+strings.Index(s[start:], "```\n")]
	got, err := initdata.ReadFile("initdata/evals.yml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != block {
		t.Errorf("initdata/evals.yml is not the README's workflow; copy the README's block into it")
	}
}

// TestNewCommandsHelp: init, compare and schema have a synopsis, examples and their flags.
func TestNewCommandsHelp(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string][]string{
		"init":    {"Usage:\n  evalgate init [DIR] [flags]", "Examples:\n  evalgate init", "--force"},
		"compare": {"Usage:\n  evalgate compare BASE HEAD [flags]", "Examples:\n  evalgate compare", "--format string", "--threshold", "--fail-on-regression", "--regression-alpha"},
		"schema":  {"Usage:\n  evalgate schema [eval|targets]", "Examples:\n  evalgate schema", "yaml-language-server"},
	} {
		code, stdout, stderr := invoke(t, cmd, "--help")
		if code != 0 || stderr != "" {
			t.Fatalf("%s --help: exit %d, stderr %q", cmd, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, w, stdout)
			}
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// yamlBlock matches a fenced YAML block whose first line names the file it stands for.
var yamlBlock = regexp.MustCompile("(?s)```yaml\n# ([^ \n]+)[^\n]*\n(.*?)```")

// TestDocsEvalFileValidates keeps the annotated eval file of docs/eval-files.md and its targets
// file true: both blocks are written to a repository and must validate without a warning.
func TestDocsEvalFileValidates(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "eval-files.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "## A complete eval file")
	if i < 0 {
		t.Fatal("docs/eval-files.md has no annotated eval file")
	}
	section := doc[i+1:]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	files := map[string]string{"evals/calculator/workspace/src/calculator.py": "def add(a, b):\n    return a + b\n"}
	for _, m := range yamlBlock.FindAllStringSubmatch(section, -1) {
		files[m[1]] = m[2]
	}
	if len(files) != 3 {
		t.Fatalf("want the eval file and the targets file, got %d blocks", len(files)-1)
	}
	dir := writeRepo(t, files)
	code, stdout, stderr := invokeEnv(t, map[string]string{"OPENAI_API_KEY": "sk-test-readme", "ANTHROPIC_API_KEY": "sk-ant-readme"},
		"validate", "--root", dir, filepath.Join(dir, "evals"))
	if code != 0 || !strings.Contains(stdout, "1 file, 0 errors, 0 warnings") {
		t.Fatalf("the eval file of docs/eval-files.md does not validate cleanly: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestREADMEWorkflowUploadsTheReport: the comment's footer points at report_dir; the README's
// workflow must upload it, under the name baseline: auto looks for.
func TestREADMEWorkflowUploadsTheReport(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range yamlBlock.FindAllStringSubmatch(string(b), -1) {
		if m[1] != ".github/workflows/evals.yml" {
			continue
		}
		for _, w := range []string{"actions/upload-artifact@", "if: always()", "name: evalgate-report", "path: .evalgate/report"} {
			if !strings.Contains(m[2], w) {
				t.Errorf("the README's workflow lacks %q", w)
			}
		}
		return
	}
	t.Fatal("the README has no .github/workflows/evals.yml block")
}

// TestREADMEEvalFileIsInits: the README's eval file at a glance is the one `evalgate init`
// writes, which TestInitThenRun runs and passes.
func TestREADMEEvalFileIsInits(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	hello, err := initdata.ReadFile("initdata/hello.eval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "## The eval file at a glance")
	if i < 0 {
		t.Fatal("the README has no eval file at a glance")
	}
	if !strings.Contains(s[i:], "```yaml\n"+string(hello)+"```\n") {
		t.Errorf("the README's eval file at a glance is not initdata/hello.eval.yaml; copy the file into it")
	}
}

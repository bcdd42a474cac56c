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

// TestREADMEEvalFileValidates keeps the README's annotated eval file and its targets file true:
// both blocks are written to a repository and must validate without a warning.
func TestREADMEEvalFileValidates(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "### A complete eval file")
	if i < 0 {
		t.Fatal("the README has no annotated eval file")
	}
	section := readme[i:]
	section = section[:strings.Index(section, "\n## ")]
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
		t.Fatalf("the README's eval file does not validate cleanly: exit %d\n%s%s", code, stdout, stderr)
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

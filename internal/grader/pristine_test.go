package grader

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// pristineRepo writes a repository whose eval file's graders fail: a code-grader script with
// a helper beside it, and a custom assertion module. It returns the root and the suite.
func pristineRepo(t *testing.T, g *suite.Grader) (string, *suite.Suite) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"evals/graders/check.sh":             "#!/bin/sh\n. \"$(dirname \"$0\")/lib.sh\"\nverdict\n",
		"evals/graders/lib.sh":               "verdict() { echo \"cwd=$(pwd)\" >&2; echo '{\"score\": 0}'; }\n",
		"evals/.agentv/assertions/never.mjs": "console.log(JSON.stringify({score: 0, assertions: [{text: 'never', passed: false}]}))\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &suite.Suite{Name: "s", Path: "evals/x.eval.yaml", Dir: filepath.Join(root, "evals"),
		Tests: []*suite.Test{{ID: "t", Graders: []*suite.Grader{g}}}}
	return root, s
}

// TestPristineGradersIgnoreTheCheckout rewrites each kind of grader script in the checkout
// after the snapshot, as an agent would, and checks that the grader still fails.
func TestPristineGradersIgnoreTheCheckout(t *testing.T) {
	t.Parallel()
	pass := "#!/bin/sh\necho '{\"score\": 1}'\n"
	tests := []struct {
		name    string
		spec    func(root string) *suite.Grader
		tamper  func(t *testing.T, root string)
		want    result.Verdict
		errText string
	}{
		{"argv script rewritten", func(string) *suite.Grader { return codeSpec("sh", "graders/check.sh") },
			func(t *testing.T, root string) { write(t, root, "evals/graders/check.sh", pass) }, result.Fail, ""},
		{"helper rewritten", func(string) *suite.Grader { return codeSpec("sh", "graders/check.sh") },
			func(t *testing.T, root string) {
				write(t, root, "evals/graders/lib.sh", "verdict() { echo '{\"score\": 1}'; }\n")
			}, result.Fail, ""},
		{"script deleted", func(string) *suite.Grader { return codeSpec("./graders/check.sh") },
			func(t *testing.T, root string) { os.Remove(filepath.Join(root, "evals/graders/check.sh")) }, result.Fail, ""},
		{"shell string", func(string) *suite.Grader { return codeSpec("sh", "-c", "sh graders/check.sh && true") },
			func(t *testing.T, root string) { write(t, root, "evals/graders/check.sh", pass) }, result.Fail, ""},
		{"script appears after the snapshot", func(string) *suite.Grader { return codeSpec("sh", "graders/new.sh") },
			func(t *testing.T, root string) { write(t, root, "evals/graders/new.sh", pass) }, result.Error, "not in evalgate's copy"},
		{"a link to the agent's script appears after the snapshot", func(string) *suite.Grader { return codeSpec("sh", "graders/new.sh") },
			func(t *testing.T, root string) {
				evil := filepath.Join(t.TempDir(), "evil.sh")
				if err := os.WriteFile(evil, []byte(pass), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(evil, filepath.Join(root, "evals/graders/new.sh")); err != nil {
					t.Fatal(err)
				}
			}, result.Error, "not in evalgate's copy"},
		{"custom module rewritten", func(root string) *suite.Grader {
			g := spec("never", nil)
			g.Custom = filepath.Join(root, "evals/.agentv/assertions/never.mjs")
			return g
		}, func(t *testing.T, root string) {
			write(t, root, "evals/.agentv/assertions/never.mjs", "console.log(JSON.stringify({score: 1}))\n")
		}, result.Fail, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(tt.name, "custom") {
				if _, err := exec.LookPath("node"); err != nil {
					if _, err := exec.LookPath("bun"); err != nil {
						t.Skip("needs node or bun")
					}
				}
			}
			root, s := pristineRepo(t, nil)
			g := tt.spec(root)
			s.Tests[0].Graders[0] = g
			p, err := Snapshot(root, filepath.Join(t.TempDir(), "copy"), []*suite.Suite{s})
			if err != nil {
				t.Fatal(err)
			}
			tt.tamper(t, root)
			gr, err := New(g, Deps{Scripts: p})
			if err != nil {
				t.Fatal(err)
			}
			r := gr.Grade(t.Context(), &Input{Suite: s, Test: s.Tests[0], Output: &result.Output{Answer: "x"}})
			if r.Verdict != tt.want || !strings.Contains(r.Error, tt.errText) {
				t.Fatalf("verdict %s (%q), want %s with %q", r.Verdict, r.Error, tt.want, tt.errText)
			}
		})
	}
}

// TestPristineKeepsTheWorkingDirectory checks that a code grader still runs in its eval
// file's directory in the checkout; only the script comes from the copy.
func TestPristineKeepsTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	g := codeSpec("sh", "graders/check.sh")
	root, s := pristineRepo(t, g)
	copyDir := filepath.Join(t.TempDir(), "copy")
	p, err := Snapshot(root, copyDir, []*suite.Suite{s})
	if err != nil {
		t.Fatal(err)
	}
	argv, err := p.argv(g.Command, s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(copyDir, "evals", "graders", "check.sh"); argv[1] != want {
		t.Errorf("argv %v, want the script at %s", argv, want)
	}
	run, err := runScript(t.Context(), "code grader", g.Command, s.Dir, nil, defaultCodeTimeout, "", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.stderr.String(); !strings.Contains(got, "cwd="+s.Dir) {
		t.Errorf("stderr %q, want the grader to run in %s", got, s.Dir)
	}
}

// TestPristineCopyChanged checks that a copy changed after the snapshot is not run.
func TestPristineCopyChanged(t *testing.T) {
	t.Parallel()
	g := codeSpec("sh", "graders/check.sh")
	root, s := pristineRepo(t, g)
	copyDir := filepath.Join(t.TempDir(), "copy")
	p, err := Snapshot(root, copyDir, []*suite.Suite{s})
	if err != nil {
		t.Fatal(err)
	}
	write(t, copyDir, "evals/graders/check.sh", "echo '{\"score\": 1}'\n")
	if _, err := p.argv(g.Command, s.Dir); err == nil || !strings.Contains(err.Error(), "changed after it was taken") {
		t.Fatalf("argv error = %v, want the changed copy refused", err)
	}
	// A system interpreter is not the repository's: it is left as it is.
	if argv, err := p.argv([]string{"/bin/sh", "-c", "true"}, s.Dir); err != nil || argv[0] != "/bin/sh" {
		t.Errorf("argv = %v, %v", argv, err)
	}
}

func write(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, name)
	// Replace rather than write through: the copy is read-only where it can be.
	_ = os.Remove(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestPristineResolvesLikeTheCheckout checks that a copied module finds what it would find in
// the checkout: the project's package.json (copied) and node_modules (linked).
func TestPristineResolvesLikeTheCheckout(t *testing.T) {
	t.Parallel()
	g := spec("never", nil)
	root, s := pristineRepo(t, g)
	g.Custom = filepath.Join(root, "evals/.agentv/assertions/never.mjs")
	write(t, root, "package.json", `{"type": "module"}`)
	if err := os.MkdirAll(filepath.Join(root, "node_modules", "@agentv", "sdk"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if _, err := Snapshot(root, copyDir, []*suite.Suite{s}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(copyDir, "package.json")); err != nil || string(b) != `{"type": "module"}` {
		t.Errorf("package.json not copied: %q %v", b, err)
	}
	if target, err := os.Readlink(filepath.Join(copyDir, "node_modules")); err != nil || target != filepath.Join(root, "node_modules") {
		t.Errorf("node_modules link = %q, %v; want a link to the checkout's", target, err)
	}
	if _, err := os.Stat(filepath.Join(copyDir, "evals", ".agentv", "assertions", "never.mjs")); err != nil {
		t.Errorf("module not copied: %v", err)
	}

	// A script at the root: its directory, the whole repository, holds the package.json.
	write(t, root, "grade.sh", "echo '{\"score\": 0}'\n")
	s.Tests[0].Graders = append(s.Tests[0].Graders, codeSpec("sh", "../grade.sh"))
	if _, err := Snapshot(root, filepath.Join(t.TempDir(), "copy"), []*suite.Suite{s}); err != nil {
		t.Fatalf("a script at the repository root: %v", err)
	}
}

// TestPristinePromptAndPreprocessorScripts rewrites an executable prompt template and a
// preprocessor in the checkout after the snapshot: both still run as they were.
func TestPristinePromptAndPreprocessorScripts(t *testing.T) {
	t.Parallel()
	root, s := pristineRepo(t, spec("llm-grader", nil))
	write(t, root, "evals/prompts/judge.sh", "echo ORIGINAL PROMPT\n")
	write(t, root, "evals/pre/xlsx.sh", "echo ORIGINAL TEXT\n")
	g := s.Tests[0].Graders[0]
	g.PromptCommand = []string{"sh", filepath.Join(root, "evals/prompts/judge.sh")}
	pre := &suite.Preprocessor{Type: "xlsx", Command: []string{"sh", filepath.Join(root, "evals/pre/xlsx.sh")}}
	s.Preprocessors = []*suite.Preprocessor{pre}
	p, err := Snapshot(root, filepath.Join(t.TempDir(), "copy"), []*suite.Suite{s})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "evals/prompts/judge.sh", "echo FORGED PROMPT\n")
	write(t, root, "evals/pre/xlsx.sh", "echo FORGED TEXT\n")
	in := &Input{Suite: s, Test: s.Tests[0], Output: &result.Output{Answer: "x"}}
	prompt, err := renderPrompt(t.Context(), g, in, p)
	if err != nil || prompt != "ORIGINAL PROMPT" {
		t.Errorf("prompt = %q, %v; want the copy's", prompt, err)
	}
	text, err := runPreprocessor(t.Context(), in, pre, filepath.Join(root, "x.xlsx"), result.ContentBlock{Path: "x.xlsx", MediaType: "xlsx"}, p)
	if err != nil || text != "ORIGINAL TEXT" {
		t.Errorf("preprocessor text = %q, %v; want the copy's", text, err)
	}
}

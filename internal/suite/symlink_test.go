package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secret is the content of the files outside the repository: it must never reach a suite
// or a diagnostic.
const secret = "TOPSECRET-VALUE"

// linkedRepo builds base/repo (the root) and base/outside (files it must not read), writes
// files under the root and creates links (name → target; "$OUT" in a target is the absolute
// outside directory). It returns the root.
func linkedRepo(t *testing.T, files, links map[string]string) string {
	t.Helper()
	base := t.TempDir()
	root, out := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "secret.txt"), secret+"\n")
	write(filepath.Join(out, "secret.yaml"), "- id: leaked\n  input: "+secret+"\n  criteria: c\n")
	write(filepath.Join(out, "casedir", "case.yaml"), "input: "+secret+"\ncriteria: c\n")
	write(filepath.Join(out, "template.yaml"), "assertions:\n  - "+secret+"\n")
	for name, body := range files {
		write(filepath.Join(root, name), body)
	}
	for name, target := range links {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(strings.ReplaceAll(target, "$OUT", out), p); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestSymlinksOutOfTheRootAreRefused(t *testing.T) {
	t.Parallel()
	const test = "tests:\n  - id: t\n    input: hi\n    criteria: c\n"
	promptfoo := "prompts: [\"{{ q }}\"]\ndefault_test: %s\ntests:\n  - id: t\n    vars: {q: hi}\n    assert: [ok]\n"
	tests := []struct {
		name  string
		eval  string // the eval file's path under the root; "" = evals/x.eval.yaml
		files map[string]string
		links map[string]string
		// want is the error: file, line, col and a substring naming the link.
		file      string
		line, col int
		want      string
	}{
		{"tests: path", "", map[string]string{"evals/x.eval.yaml": "tests: cases.yaml\n"},
			map[string]string{"evals/cases.yaml": "../../outside/secret.yaml"},
			"evals/x.eval.yaml", 1, 8, "evals/cases.yaml is a symbolic link to ../../outside/secret.yaml, which leads outside the repository root"},
		{"file:// glob", "", map[string]string{"evals/x.eval.yaml": "tests:\n  - file://cases/*.yaml\n", "evals/cases/a.yaml": "- {id: a, input: hi, criteria: c}\n"},
			map[string]string{"evals/cases/b.yaml": "$OUT/secret.yaml"},
			"evals/x.eval.yaml", 2, 5, "evals/cases/b.yaml is a symbolic link to "},
		{"tests: directory with a linked case directory", "", map[string]string{"evals/x.eval.yaml": "tests: cases\n", "evals/cases/ok/case.yaml": "input: hi\ncriteria: c\n"},
			map[string]string{"evals/cases/evil": "../../../outside/casedir"},
			"evals/x.eval.yaml", 1, 8, "evals/cases/evil is a symbolic link to ../../../outside/casedir"},
		{"tests: directory with a linked case.yaml", "", map[string]string{"evals/x.eval.yaml": "tests: cases\n", "evals/cases/c1/notes.md": "x"},
			map[string]string{"evals/cases/c1/case.yaml": "$OUT/casedir/case.yaml"},
			"evals/x.eval.yaml", 1, 8, "evals/cases/c1/case.yaml is a symbolic link"},
		{"include template", "", map[string]string{"evals/x.eval.yaml": head + "      - include: evil\n"},
			map[string]string{".agentv/templates/evil.yaml": "../../../outside/template.yaml"},
			"evals/x.eval.yaml", 5, 18, ".agentv/templates/evil.yaml is a symbolic link"},
		{"prompt file:// to /proc/self/environ", "", map[string]string{"evals/x.eval.yaml": head + "      - type: llm-grader\n        prompt: file://judge.md\n"},
			map[string]string{"evals/judge.md": "/proc/self/environ"},
			"evals/x.eval.yaml", 6, 17, "evals/judge.md is a symbolic link to /proc/self/environ, which leads outside the repository root"},
		{"input_files", "", map[string]string{"evals/x.eval.yaml": test + "    input_files: [passwd]\n"},
			map[string]string{"evals/passwd": "/etc/passwd"},
			"evals/x.eval.yaml", 5, 19, "evals/passwd is a symbolic link to /etc/passwd"},
		{"a linked directory on the way", "", map[string]string{"evals/x.eval.yaml": test + "    input_files: [data/secret.txt]\n"},
			map[string]string{"evals/data": "../../outside"},
			"evals/x.eval.yaml", 5, 19, "evals/data is a symbolic link to ../../outside"},
		{"file content block", "", map[string]string{"evals/x.eval.yaml": "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: user\n        content:\n          - {type: file, value: passwd}\n"},
			map[string]string{"evals/passwd": "/etc/passwd"},
			"evals/x.eval.yaml", 7, 33, "evals/passwd is a symbolic link"},
		{"JSONL sidecar", "evals/rows.jsonl", map[string]string{"evals/rows.jsonl": `{"id": "a", "input": "hi", "criteria": "c"}` + "\n"},
			map[string]string{"evals/rows.yaml": "$OUT/secret.yaml"},
			"evals/rows.yaml", 1, 1, "evals/rows.yaml is a symbolic link"},
		{"the eval file itself", "evals/y.eval.yaml", nil,
			map[string]string{"evals/y.eval.yaml": "../../outside/secret.yaml"},
			"evals/y.eval.yaml", 1, 1, "evals/y.eval.yaml is a symbolic link"},
		{"potato scheme", "", map[string]string{"evals/x.eval.yaml": head + "      - type: rubric_eval\n        scheme: file://potato.yaml#q\n"},
			map[string]string{"evals/potato.yaml": "$OUT/secret.yaml"},
			"evals/x.eval.yaml", 6, 17, "evals/potato.yaml is a symbolic link"},
		{"workspace template", "", map[string]string{"evals/x.eval.yaml": "workspace:\n  template: ws\n" + test},
			map[string]string{"evals/ws": "../../outside"},
			"evals/x.eval.yaml", 2, 13, "evals/ws is a symbolic link"},
		{"default_test file", "", map[string]string{"evals/x.eval.yaml": strings.Replace(promptfoo, "%s", "file://dt.yaml", 1)},
			map[string]string{"evals/dt.yaml": "$OUT/secret.yaml"},
			"evals/x.eval.yaml", 2, 15, "evals/dt.yaml is a symbolic link"},
		{"ref:// config", "", map[string]string{"evals/x.eval.yaml": strings.Replace(promptfoo, "%s", "ref://dt", 1)},
			map[string]string{".agentv/config.yaml": "$OUT/secret.yaml"},
			"evals/x.eval.yaml", 2, 15, ".agentv/config.yaml is a symbolic link"},
		{"absolute link inside the root", "", map[string]string{"evals/x.eval.yaml": "tests: cases.yaml\n", "shared/cases.yaml": "- {id: a, input: hi, criteria: c}\n"},
			map[string]string{"evals/cases.yaml": "$OUT/../repo/shared/cases.yaml"},
			"evals/x.eval.yaml", 1, 8, "only relative links inside the repository are followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := linkedRepo(t, tt.files, tt.links)
			eval := tt.eval
			if eval == "" {
				eval = "evals/x.eval.yaml"
			}
			s, ds := Load(filepath.Join(root, eval), LoadOptions{Root: root})
			if s != nil {
				t.Fatalf("loaded through a link out of the root: %+v", s.Tests)
			}
			if strings.Contains(dump(ds), secret) {
				t.Fatalf("the secret reached a diagnostic:\n%s", dump(ds))
			}
			for _, d := range ds {
				if d.Severity == Error && d.Pos.File == tt.file && d.Pos.Line == tt.line && d.Pos.Col == tt.col && strings.Contains(d.Message, tt.want) {
					return
				}
			}
			t.Fatalf("want an error at %s:%d:%d containing %q, got:\n%s", tt.file, tt.line, tt.col, tt.want, dump(ds))
		})
	}
}

func TestSymlinksInsideTheRootAreFollowed(t *testing.T) {
	t.Parallel()
	root := linkedRepo(t, map[string]string{
		"evals/x.eval.yaml":             "tests: cases.yaml\n",
		"shared/cases.yaml":             "- {id: a, input: hi, criteria: c, input_files: [../evals/data/in.txt]}\n",
		"shared/data/in.txt":            "input\n",
		"shared/cases/one/case.yaml":    "input: hi\ncriteria: c\n",
		"evals/dir.eval.yaml":           "tests: linked-cases\n",
		".agentv/templates/real.yaml":   "assertions:\n  - ok\n",
		"evals/include.eval.yaml":       head + "      - include: linked\n",
		"evals/prompt.eval.yaml":        head + "      - type: llm-grader\n        prompt: file://judge.md\n",
		"shared/judge.md":               "Grade {{ output }}\n",
		"evals/sub/targets-free/.keep":  "",
		"evals/sub/nested.eval.yaml":    "tests: ../cases.yaml\n",
		"evals/sub/targets-free/x.yaml": "",
	}, map[string]string{
		"evals/cases.yaml":              "../shared/cases.yaml",
		"evals/data":                    "../shared/data",
		"evals/linked-cases":            "../shared/cases",
		".agentv/templates/linked.yaml": "real.yaml",
		"evals/judge.md":                "../shared/judge.md",
	})
	for _, f := range []string{"x.eval.yaml", "dir.eval.yaml", "include.eval.yaml", "prompt.eval.yaml", "sub/nested.eval.yaml"} {
		s, ds := Load(filepath.Join(root, "evals", f), LoadOptions{Root: root})
		if s == nil || ds.HasErrors() {
			t.Fatalf("%s did not load:\n%s", f, dump(ds))
		}
		if len(s.Tests) != 1 {
			t.Fatalf("%s: %d tests", f, len(s.Tests))
		}
	}
}

func TestTargetsFilesStayInTheRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		targets   string
		links     map[string]string
		file      string
		line, col int
		want      string
	}{
		{"targets.yaml is a link", "", map[string]string{".agentv/targets.yaml": "$OUT/secret.yaml"},
			".agentv/targets.yaml", 1, 1, ".agentv/targets.yaml is a symbolic link"},
		{"mock replies", "targets:\n  - name: j\n    provider: mock\n    replies: ../recorded/r.jsonl\n", map[string]string{"recorded/r.jsonl": "$OUT/secret.txt"},
			".agentv/targets.yaml", 4, 14, "recorded/r.jsonl is a symbolic link"},
		{"replay outputs", "targets:\n  - name: a\n    provider: replay\n    outputs: ../../outside/secret.txt\n", nil,
			".agentv/targets.yaml", 4, 14, "../../outside/secret.txt is outside the repository root"},
		{"replay fixtures", "targets:\n  - name: a\n    provider: replay\n    fixtures: ../o.jsonl\n", map[string]string{"o.jsonl": "/proc/self/environ"},
			".agentv/targets.yaml", 4, 15, "o.jsonl is a symbolic link to /proc/self/environ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			if tt.targets != "" {
				files[".agentv/targets.yaml"] = tt.targets
			}
			root := linkedRepo(t, files, tt.links)
			_, ds := LoadTargetsWith(filepath.Join(root, ".agentv/targets.yaml"), LoadOptions{Root: root})
			if strings.Contains(dump(ds), secret) {
				t.Fatalf("the secret reached a diagnostic:\n%s", dump(ds))
			}
			for _, d := range ds {
				if d.Severity == Error && d.Pos.File == tt.file && d.Pos.Line == tt.line && d.Pos.Col == tt.col && strings.Contains(d.Message, tt.want) {
					return
				}
			}
			t.Fatalf("want an error at %s:%d:%d containing %q, got:\n%s", tt.file, tt.line, tt.col, tt.want, dump(ds))
		})
	}
}

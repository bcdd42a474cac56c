package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateCLICommands: validate points at a cli command that will not work once it runs in
// a workspace copy, at an unset ${{ VAR }} in a command, and at ${{ PWD }}.
func TestValidateCLICommands(t *testing.T) {
	t.Parallel()
	const eval = "workspace:\n  template: ../ws\ntests:\n  - id: t\n    input: hi\n    assertions:\n      - type: contains\n        value: hi\n"
	tests := []struct {
		name    string
		command string
		args    []string
		code    int
		want    []string
		notWant string
	}{
		{"a repository path the copy lacks", "python3 agent/fix.py {PROMPT}", nil, 0, []string{
			"targets.yaml:4:5: warning: target default: command names agent/fix.py, relative to ., but with the workspace of evals/a.eval.yaml",
			"write ${{ AGENTV_REPO_ROOT }}/agent/fix.py"}, ""},
		{"AGENTV_REPO_ROOT is the fix", "python3 ${{ AGENTV_REPO_ROOT }}/agent/fix.py {PROMPT}", nil, 0, []string{"0 errors, 0 warnings"}, "command names"},
		{"a path the copy holds", "sh ./setup.sh", nil, 0, []string{"0 errors, 0 warnings"}, "command names"},
		{"an unset variable is an error", "python3 ${{ AGENT_DIR }}/fix.py", []string{"--strict", "--allow-env", "AGENT_DIR"}, 2, []string{
			"targets.yaml:2:5: error: cli target default: command: ${{ AGENT_DIR }} is not set (set the AGENT_DIR environment variable)"}, ""},
		{"PWD gets the fix", "python3 ${{ PWD }}/agent/fix.py", nil, 0, []string{
			"${{ PWD }} reads an environment variable that is not allowed", "write ${{ AGENTV_REPO_ROOT }}/… (PWD is empty in evalgate's container)"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			files := map[string]string{
				"agent/fix.py":      "print('fixed')\n",
				"ws/setup.sh":       "true\n",
				"setup.sh":          "true\n",
				"evals/a.eval.yaml": eval,
				"targets.yaml":      "targets:\n  - name: default\n    provider: cli\n    command: " + tt.command + "\n    grader_target: j\n  - name: j\n    provider: mock\n",
			}
			for name, body := range files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"validate", "--root", root}, tt.args...)
			code, stdout, stderr := invokeGetenv(t, func(string) string { return "" }, append(args, filepath.Join(root, "evals"))...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if tt.notWant != "" && strings.Contains(stdout, tt.notWant) {
				t.Errorf("stdout has %q:\n%s", tt.notWant, stdout)
			}
		})
	}
}

// TestValidateChecksTargetsOfBrokenEvalFiles: an eval file with errors still has its targets
// file checked, so both files' mistakes show at once.
func TestValidateChecksTargetsOfBrokenEvalFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"evals/z.eval.yaml": "tests:\n  - id: t\n    input: hi\n    assertions:\n      - type: containz\n        value: x\n",
		"targets.yaml":      "targets:\n  - name: default\n    provider: mock\n    respnse: hi\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, _ := invoke(t, "validate", "--root", root, filepath.Join(root, "evals"))
	for _, w := range []string{`unknown grader type "containz"`, `targets.yaml:4:5: error: target default: unknown key "respnse" (did you mean "response"?)`, "1 file, 3 errors"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}

// TestValidateTellsFileMistakesFromEnvironmentGaps: in a targets file with a mistake of its own
// and an unset variable, validate reports the mistake as an error and the variable as a warning.
func TestValidateTellsFileMistakesFromEnvironmentGaps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"evals/a.eval.yaml": "tests:\n  - id: t\n    input: hi\n    assertions:\n      - type: contains\n        value: hi\n",
		"targets.yaml":      "targets:\n  - name: default\n    use_target: ${{ AGENT_TARGET }}\n  - provider: mock\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, _ := invokeGetenv(t, func(string) string { return "" }, "validate", "--root", root, "--allow-env", "AGENT_TARGET", filepath.Join(root, "evals"))
	for _, w := range []string{
		"targets.yaml:2:5: warning: target default: use_target: ${{ AGENT_TARGET }} is not set (set the AGENT_TARGET environment variable) — not checked",
		"targets.yaml:4:5: error: target has no name",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}

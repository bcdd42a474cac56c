package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
)

// TestRunHookAgentVCwdAndArgs: a hook declared in a file runs in that file's directory, a
// relative cwd is resolved there (AgentV's rules), and {{…}} placeholders in its arguments are
// replaced.
func TestRunHookAgentVCwdAndArgs(t *testing.T) {
	t.Parallel()
	evalDir, ws := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(evalDir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := t.TempDir()
	tests := []struct{ cwd, want string }{
		{"", evalDir},
		{"scripts", filepath.Join(evalDir, "scripts")},
		{".", evalDir},
		{abs, abs},
	}
	for _, tc := range tests {
		out := filepath.Join(t.TempDir(), "out")
		h := &suite.Hook{Dir: evalDir, Cwd: tc.cwd, Command: []string{"sh", "-c",
			`printf '%s\n' "$(pwd -P)" "$1" "$2" "$3" "$4" "$5" > "$6"`, "hook",
			"{{workspace_path}}", "{{test_id}}:{{eval_run_id}}", "{{case_input}}", "{{case_metadata}}", "{{unknown}}", out}}
		in := hookInput{TestID: "t1", EvalRunID: "run-1", CaseInput: "fix the bug", CaseMetadata: map[string]any{"k": "v"}}
		if _, err := runHook(t.Context(), beforeEach, h, in, ws, nil); err != nil {
			t.Fatalf("cwd %q: %v", tc.cwd, err)
		}
		want, _ := filepath.EvalSymlinks(tc.want)
		got := strings.Split(strings.TrimSuffix(read(t, out), "\n"), "\n")
		wantLines := []string{want, ws, "t1:run-1", "fix the bug", `{"k":"v"}`, "{{unknown}}"}
		if strings.Join(got, "|") != strings.Join(wantLines, "|") {
			t.Errorf("cwd %q: got %q, want %q", tc.cwd, got, wantLines)
		}
	}
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	msgs := []suite.Message{{Role: "system", Content: " Be brief. "}, {Role: "user", Content: ""}, {Role: "user", Content: "Fix it.\n"}}
	if got := Question(msgs); got != "Be brief. Fix it." {
		t.Errorf("Question = %q", got)
	}
}

func TestCheckEnv(t *testing.T) {
	t.Parallel()
	_, noPython := exec.LookPath("python3")
	pos := suite.Pos{File: "evals/x.yaml", Line: 4, Col: 3}
	tests := []struct {
		name string
		env  suite.WorkspaceEnv
		want string // "" = passes
	}{
		{"nothing required", suite.WorkspaceEnv{}, ""},
		{"present command", suite.WorkspaceEnv{RequiredCommands: []string{"sh", "git"}}, ""},
		{"missing commands", suite.WorkspaceEnv{RequiredCommands: []string{"sh", "evalgate-no-such-tool", "ffmpeg-evalgate-x"}, Pos: pos},
			"workspace env (evals/x.yaml:4): missing command evalgate-no-such-tool, command ffmpeg-evalgate-x: install them"},
		{"python modules", suite.WorkspaceEnv{RequiredPythonModules: []string{"json", "evalgate_no_such_module"}, Pos: pos},
			map[bool]string{true: "missing python module evalgate_no_such_module:", false: "missing python3 (to import json, evalgate_no_such_module)"}[noPython == nil]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkEnv(t.Context(), tc.env, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Error(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEnvCheckFailsEveryTest: a missing command fails each test of the suite, naming it, before
// anything is cloned or run.
func TestEnvCheckFailsEveryTest(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "before_all ran")
	spec := &suite.Workspace{Env: suite.WorkspaceEnv{RequiredCommands: []string{"evalgate-missing-cmd"}},
		Hooks: suite.WorkspaceHooks{BeforeAll: hook(3, "touch "+q(marker))}}
	m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
	for _, id := range []string{"a", "b"} {
		if _, err := m.Acquire(t.Context(), id, nil, nil); err == nil || !strings.Contains(err.Error(), "missing command evalgate-missing-cmd") {
			t.Errorf("%s: err = %v", id, err)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("before_all ran although the env check failed")
	}
	if err := m.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

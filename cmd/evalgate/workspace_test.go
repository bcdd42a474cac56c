package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
)

// invokeEnv runs evalgate with the given environment (nothing else is visible to it).
func invokeEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return invokeGetenv(t, func(k string) string { return env[k] }, args...)
}

// invokeGetenv is invoke with the environment getenv reads.
func invokeGetenv(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestWorkspaceHooksAndIsolation(t *testing.T) {
	t.Parallel()
	for _, isolation := range []string{"shared", "per_test"} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "after_all.json")
			code, stdout, stderr := invokeEnv(t, map[string]string{"ISOLATION": isolation, "HOOK_LOG": log},
				"run", "--root", "testdata/hooks", "--allow-env", "ISOLATION,HOOK_LOG", "--workers", "3", "--no-cache", "--format", "json", "testdata/hooks")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var run result.Run
			if err := json.Unmarshal([]byte(stdout), &run); err != nil {
				t.Fatal(err)
			}
			for _, tr := range run.Suites[0].Tests {
				if tr.Verdict != result.Pass || tr.Output == nil {
					t.Fatalf("%s: %s %s", tr.ID, tr.Verdict, tr.Error)
				}
				diff := tr.Output.FileChanges
				// Each test's diff is its own file only: not before_all's setup.txt, not
				// before_each's stdin capture, not another test's file.
				if !strings.Contains(diff, "+++ b/"+tr.ID+".txt") || strings.Count(diff, "+++ ") != 1 {
					t.Errorf("%s: file_changes =\n%s", tr.ID, diff)
				}
			}
			var in struct {
				WorkspacePath string `json:"workspace_path"`
				EvalRunID     string `json:"eval_run_id"`
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("after_all did not run: %v", err)
			}
			if err := json.Unmarshal(data, &in); err != nil || in.WorkspacePath == "" || in.EvalRunID == "" {
				t.Errorf("after_all stdin = %s (%v)", data, err)
			}
			if _, err := os.Stat(in.WorkspacePath); !os.IsNotExist(err) {
				t.Errorf("workspace %s left behind after a passing run", in.WorkspacePath)
			}
		})
	}
}

// mergeSuite's tests write their own workspace over the suite's: one only a timeout for
// before_each, one enabled: false; the agent answers whether the template and the suite's
// before_each reached its workspace.
const mergeSuite = `name: merge
workspace:
  template: ./ws
  hooks:
    before_each:
      command: echo hooked > "$AGENTV_WORKSPACE_PATH/hooked.txt"
tests:
  - id: timeout
    input: go
    workspace:
      hooks:
        before_each:
          timeout_ms: 20000
    assertions:
      - {type: equals, value: "template hooked timeout"}
  - id: plain
    input: go
    assertions:
      - {type: equals, value: "template hooked plain"}
  - id: off
    input: go
    workspace:
      hooks:
        enabled: false
    assertions:
      - {type: equals, value: "template bare off"}
`

const mergeTargets = `targets:
  - name: default
    provider: cli
    command: sh -c 't=none; test -f base.txt && t=template; h=bare; test -f hooked.txt && h=hooked; echo "$t $h $1" > "$2"' agent {EVAL_ID} {OUTPUT_FILE}
    timeout_seconds: 20
`

func TestWorkspaceMergeE2E(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{"evals/merge.eval.yaml": mergeSuite, "evals/targets.yaml": mergeTargets, "evals/ws/base.txt": "base\n"})
	code, stdout, stderr := invokeEnv(t, nil, "run", "--root", dir, "--no-cache", "--format", "json", filepath.Join(dir, "evals"))
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil || len(run.Suites) != 1 || len(run.Suites[0].Tests) != 3 {
		t.Fatalf("exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}
	for _, tr := range run.Suites[0].Tests {
		if tr.Verdict != result.Pass {
			answer := ""
			if tr.Output != nil {
				answer = tr.Output.Answer
			}
			t.Errorf("%s: %s %s (answered %q)", tr.ID, tr.Verdict, tr.Error, answer)
		}
	}
	if code != 0 {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/result"
)

// containAgent is a scripted agent that tries to escape its test: $1 (the test id) picks the
// attempt, $2 is the output file. $SCRATCH, outside every workspace, is where it leaves its
// daemon's pid, its planted program and what it saw of its environment.
const containAgent = `#!/bin/sh
id=$1 out=$2
answer() { printf '{"output": [{"role": "assistant", "content": "did %s"}]}\n' "$id" > "$out"; }
case "$id" in
daemon)
  setsid sh -c 'echo $$ > "$SCRATCH/daemon.pid"; exec sleep 300' >/dev/null 2>&1 </dev/null &
  until [ -s "$SCRATCH/daemon.pid" ]; do sleep 0.01; done
  answer ;;
planted)
  printf '#!/bin/sh\ntouch "%s/evalgate-ran-it"\ncat\n' "$SCRATCH" > "$SCRATCH/evil.sh"; chmod +x "$SCRATCH/evil.sh"
  mkdir -p "$SCRATCH/hooks"
  for h in pre-commit post-commit post-index-change reference-transaction; do cp "$SCRATCH/evil.sh" "$SCRATCH/hooks/$h"; done
  git config core.fsmonitor "$SCRATCH/evil.sh"
  git config core.hooksPath "$SCRATCH/hooks"
  git config diff.evil.textconv "$SCRATCH/evil.sh"
  git config diff.external "$SCRATCH/evil.sh"
  git config filter.evil.clean "$SCRATCH/evil.sh"
  echo '* diff=evil filter=evil' > .gitattributes
  echo "edited by planted" >> README.md; answer ;;
committed)
  echo "edited by committed" >> README.md; echo new > committed.txt
  git add -A; git -c user.name=agent -c user.email=agent@example.com commit -qm "the agent's work"; answer ;;
no-diff)
  echo '* -diff' > .gitattributes; echo "edited by no-diff" >> README.md; answer ;;
ignored)
  echo 'hidden.txt' >> .gitignore; echo "hidden by ignored" > hidden.txt; answer ;;
env)
  env > "$SCRATCH/agent.env"; answer ;;
*) echo "unknown test $id" >&2; exit 2 ;;
esac
`

// containTargets runs containAgent with a healthcheck; SCRATCH and FROM_CONFIG are what the
// target passes explicitly.
const containTargets = `targets:
  - name: default
    provider: cli
    command: sh "$AGENT" {EVAL_ID} {OUTPUT_FILE}
    healthcheck: env > "$SCRATCH/health.env"
    env:
      AGENT: ${{ AGENT }}
      SCRATCH: ${{ SCRATCH }}
      FROM_CONFIG: passed
    timeout_seconds: 20
    grader_target: judge
  - name: judge
    provider: openai
    model: gpt-4o-mini
    api_key: k
    base_url: ${{ FAKE_URL }}/v1
`

// containSuite gives every test a before_each hook and a code grader that record their
// environment; a daemon left behind is an error of its test.
const containSuite = `name: contain
execution:
  background_processes: error
workspace:
  template: ./ws
  hooks:
    before_each:
      command: env > "${{ SCRATCH }}/hook.env"
assertions:
  - type: rubrics
    criteria:
      - id: done
        outcome: The agent did its task
  - type: code-grader
    command: env > "${{ SCRATCH }}/grader.env"; echo recorded
tests:
  - id: daemon
    input: "Task daemon: start a daemon"
  - id: planted
    input: "Task planted: plant programs in the workspace's git"
  - id: committed
    input: "Task committed: commit the work"
  - id: no-diff
    input: "Task no-diff: mark every file binary"
  - id: ignored
    input: "Task ignored: ignore the new file"
  - id: env
    input: "Task env: look for secrets"
`

// containSecrets are what a GitHub Actions job holds and no agent, hook, healthcheck or grader
// may see.
var containSecrets = []string{"INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPENAI_API_KEY"}

// TestContainmentE2E runs agents that try to escape their test, through the whole program: a
// setsid daemon, programs planted in the workspace's git config and hooks, a commit, a
// "* -diff" attribute, a .gitignore hiding a new file, and a look at the environment of a job
// holding secrets. Not parallel: the secrets are in evalgate's own environment.
//
//nolint:paralleltest // t.Setenv: the secrets are in evalgate's own environment
func TestContainmentE2E(t *testing.T) {
	for _, k := range containSecrets {
		t.Setenv(k, "secret-value-of-"+k)
	}
	srv := llmtest.New(t)
	srv.Reply = func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"checks": [{"id": "done", "satisfied": true, "reasoning": "ok"}], "overall_reasoning": "ok"}`}
	}
	root, scratch, out := t.TempDir(), t.TempDir(), t.TempDir()
	files := map[string]string{
		"agent.sh": containAgent, "targets.yaml": containTargets, "evals/contain.eval.yaml": containSuite,
		"evals/ws/README.md": "# scratch project\n", "evals/ws/.gitignore": "*.log\n",
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
	vars := map[string]string{"FAKE_URL": srv.URL, "AGENT": filepath.Join(root, "agent.sh"), "SCRATCH": scratch}
	var stdout, stderr bytes.Buffer
	code := runEnv(t.Context(), []string{"run", "--root", root, "--allow-env", "FAKE_URL,AGENT,SCRATCH", "--workers", "8", "--no-cache", "--out", out, root},
		env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }})
	if code != 1 {
		t.Errorf("exit %d, want 1 (the daemon test is an error)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	byID := map[string]*result.TestResult{}
	for _, s := range run.Suites {
		if s.Error != "" {
			t.Fatalf("suite %s: %s", s.Path, s.Error)
		}
		for _, tr := range s.Tests {
			byID[tr.ID] = tr
			if tr.Workspace != "" {
				t.Cleanup(func() { os.RemoveAll(tr.Workspace) })
			}
		}
	}

	t.Run("a setsid daemon dies with its test", func(t *testing.T) {
		if tr := byID["daemon"]; tr == nil || tr.Verdict != result.Error || !strings.Contains(tr.Error, "left background processes running") {
			t.Errorf("daemon: %s, want an error for the process left behind", describe(tr))
		}
		b, err := os.ReadFile(filepath.Join(scratch, "daemon.pid"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil && !zombie(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the daemon %d outlived its test", pid)
			}
		}
	})

	// Each graded test's file_changes holds what its agent did.
	for _, tt := range []struct {
		id      string
		want    []string
		notWant []string
	}{
		{id: "planted", want: []string{"+edited by planted", "+++ b/.gitattributes"}},
		{id: "committed", want: []string{"+edited by committed", "+++ b/committed.txt"}},
		{id: "no-diff", want: []string{"+edited by no-diff"}, notWant: []string{"Binary files"}},
		{id: "ignored", want: []string{"+++ b/hidden.txt", "+hidden by ignored", "+hidden.txt"}},
	} {
		t.Run(tt.id, func(t *testing.T) {
			tr := byID[tt.id]
			if tr == nil || tr.Verdict != result.Pass || tr.Output == nil {
				t.Fatalf("%s, want a pass", describe(tr))
			}
			for _, s := range tt.want {
				if !strings.Contains(tr.Output.FileChanges, s) {
					t.Errorf("file_changes lacks %q:\n%s", s, tr.Output.FileChanges)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(tr.Output.FileChanges, s) {
					t.Errorf("file_changes has %q:\n%s", s, tr.Output.FileChanges)
				}
			}
		})
	}
	t.Run("programs planted in the workspace's git never run", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(scratch, "evil.sh")); err != nil {
			t.Fatalf("the agent planted nothing: %v", err)
		}
		if _, err := os.Stat(filepath.Join(scratch, "evalgate-ran-it")); err == nil {
			t.Error("evalgate ran a program the agent planted")
		}
	})

	t.Run("no secrets in any user command's environment", func(t *testing.T) {
		for _, name := range []string{"agent.env", "health.env", "hook.env", "grader.env"} {
			b, err := os.ReadFile(filepath.Join(scratch, name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			env := "\n" + string(b)
			for _, k := range containSecrets {
				if strings.Contains(env, k) {
					t.Errorf("%s has %s", name, k)
				}
			}
			if !strings.Contains(env, "\nPATH=") {
				t.Errorf("%s lacks PATH:\n%s", name, env)
			}
			if wantConfig := name == "agent.env" || name == "health.env"; wantConfig != strings.Contains(env, "\nFROM_CONFIG=passed\n") {
				t.Errorf("%s: FROM_CONFIG from the target's env: present = %v, want %v", name, !wantConfig, wantConfig)
			}
		}
	})
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// describe is a result's verdict and error, for failure messages.
func describe(tr *result.TestResult) string {
	if tr == nil {
		return "no result"
	}
	return fmt.Sprintf("%s %q", tr.Verdict, tr.Error)
}

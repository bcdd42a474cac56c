package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
)

// hook is a shell hook declared at evals/ws.yaml:line.
func hook(line int, script string) *suite.Hook {
	return &suite.Hook{Command: []string{"sh", "-c", script}, Pos: suite.Pos{File: "evals/ws.yaml", Line: line, Col: 5}}
}

// q makes s one shell word.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v: %s", path, err, data)
	}
	return m
}

func TestRunHookStdinCwdAndEnv(t *testing.T) {
	t.Parallel()
	abs := t.TempDir()
	tests := []struct {
		name    string
		stage   stage
		cwd     string
		in      hookInput
		wantCwd func(dir string) string
		absent  []string
	}{
		{
			name:  "before_each in the workspace",
			stage: beforeEach,
			in: hookInput{TestID: "t1", EvalRunID: "run-7", CaseInput: []any{map[string]any{"role": "user", "content": "hi"}},
				CaseMetadata: map[string]any{"lang": "go"}},
			wantCwd: func(dir string) string { return dir },
		},
		{
			name:    "relative cwd is under the workspace",
			stage:   afterEach,
			cwd:     "sub",
			in:      hookInput{TestID: "t2", EvalRunID: "run-7"},
			wantCwd: func(dir string) string { return filepath.Join(dir, "sub") },
			absent:  []string{"case_input", "case_metadata"},
		},
		{
			name:    "absolute cwd, suite-level hook has no test",
			stage:   beforeAll,
			cwd:     abs,
			in:      hookInput{EvalRunID: "run-7"},
			wantCwd: func(string) string { return abs },
			absent:  []string{"test_id", "case_input", "case_metadata"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, out := t.TempDir(), t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			stdin, cwd, env := filepath.Join(out, "stdin.json"), filepath.Join(out, "cwd"), filepath.Join(out, "env")
			h := hook(3, "cat > "+q(stdin)+"; pwd -P > "+q(cwd)+"; printf %s \"$AGENTV_WORKSPACE_PATH\" > "+q(env))
			h.Cwd = tc.cwd
			if _, err := runHook(t.Context(), tc.stage, h, tc.in, dir, nil); err != nil {
				t.Fatal(err)
			}
			got := readJSON(t, stdin)
			if got["workspace_path"] != dir || got["eval_run_id"] != tc.in.EvalRunID {
				t.Errorf("stdin = %v", got)
			}
			if tc.in.TestID != "" && got["test_id"] != tc.in.TestID {
				t.Errorf("test_id = %v, want %s", got["test_id"], tc.in.TestID)
			}
			if tc.in.CaseInput != nil {
				msgs, _ := got["case_input"].([]any)
				if len(msgs) != 1 || msgs[0].(map[string]any)["content"] != "hi" {
					t.Errorf("case_input = %v", got["case_input"])
				}
				if md, _ := got["case_metadata"].(map[string]any); md["lang"] != "go" {
					t.Errorf("case_metadata = %v", got["case_metadata"])
				}
			}
			for _, k := range tc.absent {
				if _, ok := got[k]; ok {
					t.Errorf("stdin has %s: %v", k, got)
				}
			}
			wantCwd, _ := filepath.EvalSymlinks(tc.wantCwd(dir))
			if b, _ := os.ReadFile(cwd); strings.TrimSpace(string(b)) != wantCwd {
				t.Errorf("cwd = %q, want %q", b, wantCwd)
			}
			if b, _ := os.ReadFile(env); string(b) != dir {
				t.Errorf("AGENTV_WORKSPACE_PATH = %q, want %q", b, dir)
			}
		})
	}
}

func TestRunHookErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stage stage
		hook  *suite.Hook
		want  string
	}{
		{"exit code and stderr tail", beforeEach, hook(12, "echo ignored; echo one >&2; echo boom >&2; exit 2"),
			"before_each hook (evals/ws.yaml:12) exited 2: one | boom"},
		{"stdout when stderr is empty", afterAll, hook(4, "echo only stdout; exit 1"),
			"after_all hook (evals/ws.yaml:4) exited 1: only stdout"},
		{"timeout_ms", beforeAll, &suite.Hook{Command: []string{"sleep", "30"}, TimeoutMS: 200, Pos: suite.Pos{File: "w.yaml", Line: 2}},
			"before_all hook (w.yaml:2) timed out after 200ms"},
		{"no command", afterEach, &suite.Hook{Pos: suite.Pos{File: "w.yaml", Line: 9}},
			"after_each hook (w.yaml:9) has no command"},
		{"missing program", beforeEach, &suite.Hook{Command: []string{"/nonexistent/evalgate-hook"}},
			"before_each hook: fork/exec /nonexistent/evalgate-hook"},
		{"missing cwd", beforeEach, &suite.Hook{Command: []string{"true"}, Cwd: "nope"},
			"before_each hook: cwd "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := runHook(t.Context(), tc.stage, tc.hook, hookInput{}, t.TempDir(), nil)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestRunHookTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	// The hook ignores SIGTERM, so only the group SIGKILL can end it and its child.
	h := hook(1, "trap '' TERM; sleep 30 & echo $$ $! > "+q(pids)+"; wait")
	h.TimeoutMS = 300
	start := time.Now()
	_, err := runHook(t.Context(), beforeEach, h, hookInput{}, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		t.Fatalf("pids = %q", b)
	}
	pgid, _ := strconv.Atoi(fields[0])
	child, _ := strconv.Atoi(fields[1])
	// The orphaned child is reaped by init shortly after the kill; until then it is a zombie.
	deadline := time.Now().Add(5 * time.Second)
	for {
		groupGone := errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
		childGone := errors.Is(syscall.Kill(child, 0), syscall.ESRCH)
		if groupGone && childGone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive (child %d gone: %v)", pgid, child, childGone)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunHookCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := runHook(ctx, beforeEach, hook(1, "sleep 30"), hookInput{}, t.TempDir(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"fits", []string{"ab", "cd"}, 8, "abcd"},
		{"drops the oldest", []string{"abcd", "efgh", "ij"}, 5, "fghij"},
		{"one big write", []string{"ab", "0123456789"}, 4, "6789"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &tailBuffer{max: tc.max}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := string(b.Bytes()); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

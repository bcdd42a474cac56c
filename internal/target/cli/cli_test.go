package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

func newAgent(t *testing.T, settings map[string]any) *Target {
	t.Helper()
	script, _ := filepath.Abs("testdata/agent.sh")
	s := map[string]any{"command": script + " {PROMPT} {OUTPUT_FILE}", "timeout_seconds": 5}
	for k, v := range settings {
		s[k] = v
	}
	tg, err := New(&suite.TargetConfig{Name: "scripted", Settings: s, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func req(prompt, ws string) *target.Request {
	return &target.Request{Suite: &suite.Suite{Name: "s"}, Test: &suite.Test{ID: "t"}, Prompt: prompt, Attempt: 1, Workspace: ws}
}

func TestGoodAgent(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out, err := newAgent(t, nil).Run(t.Context(), req("good", ws))
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Created app.py" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Tool != "Write" || out.Usage.InputTokens != 120 || out.Usage.CostUSD != 0.002 {
		t.Fatalf("%+v", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "app.py")); err != nil {
		t.Fatal("the agent did not run in its workspace")
	}
	out, err = newAgent(t, nil).Run(t.Context(), req("plain", ws))
	if err != nil || out.Answer != "just text" {
		t.Fatalf("plain text answer: %+v %v", out, err)
	}
}

func TestMisbehavingAgents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, want string
		settings   map[string]any
	}{
		{"exit3", "exited with code 3: something broke", nil},
		{"flood", "", nil}, // 100 MB on stdout while the answer is in the output file: fine
		{"hang", "timed out after 300ms; killed its process group", map[string]any{"timeout_seconds": 0.3}},
		{"badjson", "not valid JSON", nil},
		{"empty", "returned an empty answer", nil},
		{"rmws", "deleted its workspace", nil},
		{"'; echo injected; '", "exited with code 2: unknown mode", nil}, // the prompt cannot escape its quoting
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			ws := filepath.Join(t.TempDir(), "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := newAgent(t, tt.settings).Run(t.Context(), req(tt.mode, ws))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFloodIsAnError(t *testing.T) {
	t.Parallel()
	// An agent printing 100 MB is read through a capped buffer (never held whole); when what it
	// printed is the answer, a cut answer is an error rather than something to grade.
	for _, tc := range []struct{ name, command string }{
		{"stdout", "head -c 100000000 /dev/zero | tr '\\0' y"},
		{"output file", "head -c 9000000 /dev/zero | tr '\\0' y > {OUTPUT_FILE}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg, err := New(&suite.TargetConfig{Name: "flood", Dir: t.TempDir(), Settings: map[string]any{"command": tc.command}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tg.Run(t.Context(), req("x", "")); !errors.Is(err, errTooBig) {
				t.Fatalf("err = %v, want errTooBig", err)
			}
		})
	}
}

// TestLingeringChildIsKilledAndReported: what an agent leaves running is killed; the answer
// is still graded, with a note, unless the suite's execution.background_processes is error.
func TestLingeringChildIsKilledAndReported(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"", "kill", backgroundError} {
		t.Run("policy "+policy, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			tg := newAgent(t, map[string]any{"env": map[string]any{"PIDFILE": pidFile}})
			r := req("linger", t.TempDir())
			r.Suite.BackgroundProcesses = policy
			out, err := tg.Run(t.Context(), r)
			if policy == backgroundError {
				if !errors.Is(err, errLingering) {
					t.Fatalf("err = %v, want errLingering", err)
				}
			} else if err != nil || len(out.Notes) != 1 || out.Notes[0] != noteLingering || out.Answer == "" {
				t.Fatalf("Run = %+v, %v; want an answer with the note %q", out, err, noteLingering)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			deadline := time.Now().Add(5 * time.Second)
			for syscall.Kill(pid, 0) == nil {
				if time.Now().After(deadline) {
					t.Fatalf("child %d outlived its test", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestFinishedChildrenAreNotLingering(t *testing.T) {
	t.Parallel()
	// Children that finished before the agent did (a build step, a test run) are fine.
	tg, err := New(&suite.TargetConfig{Name: "ok", Dir: t.TempDir(), Settings: map[string]any{
		"command": "sh -c 'true' & wait; (sleep 0.1; echo child) >/dev/null & wait; echo done"}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tg.Run(t.Context(), req("x", "")); err != nil || strings.TrimSpace(out.Answer) != "done" {
		t.Fatalf("out %+v, err %v", out, err)
	}
}

func TestCommandTemplate(t *testing.T) {
	t.Parallel()
	if _, err := New(&suite.TargetConfig{Name: "x", Settings: map[string]any{"command": "agent {PROMT}"}}); err == nil || !strings.Contains(err.Error(), "unknown placeholder {PROMT}") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(&suite.TargetConfig{Name: "x", Settings: map[string]any{}}); err == nil {
		t.Fatal("missing command accepted")
	}
	tg := &Target{command: "run {PROMPT} {EVAL_ID} {ATTEMPT} {FILES}"}
	got := tg.render(&target.Request{Test: &suite.Test{ID: "t1", InputFiles: []string{"a b.txt"}}, Prompt: "it's", Attempt: 2}, "/p", "/o")
	if want := `run 'it'\''s' 't1' '2' 'a b.txt'`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestOutputFileLinkOutside: an output file that links outside its directory is not followed:
// evalgate (root, in the image) would otherwise read whatever the agent names as its answer.
func TestOutputFileLinkOutside(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(`{"output": [{"role": "assistant", "content": "secret"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tg, err := New(&suite.TargetConfig{Name: "link", Dir: t.TempDir(), Settings: map[string]any{
		"command": "ln -s " + quote(secret) + " {OUTPUT_FILE}"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tg.Run(t.Context(), req("x", ""))
	if err == nil || !strings.Contains(err.Error(), "wrote no output file") {
		t.Fatalf("Run = %+v, %v; want no output file read through the link", out, err)
	}
}

// TestOutputFileFIFO: a named pipe left as the output file is refused, not opened (an open
// would wait for a writer that is dead).
func TestOutputFileFIFO(t *testing.T) {
	t.Parallel()
	tg, err := New(&suite.TargetConfig{Name: "fifo", Dir: t.TempDir(), Settings: map[string]any{
		"command": "rm -f {OUTPUT_FILE}; mkfifo {OUTPUT_FILE}"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	out, err := tg.Run(ctx, req("x", ""))
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Run = %+v, %v (ctx %v); want the pipe refused at once", out, err, ctx.Err())
	}
}

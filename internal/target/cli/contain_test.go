//go:build linux

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
)

// TestDetachedChildrenAreKilled: whatever an agent starts — in its own session, through a
// double fork — is killed when the agent's run ends, and a normal exit that leaves it behind
// is an error when the suite says so.
func TestDetachedChildrenAreKilled(t *testing.T) {
	t.Parallel()
	const daemon = `setsid sh -c 'trap "" TERM HUP; echo $$ > "$PIDFILE"; exec sleep 300' >/dev/null 2>&1 </dev/null &`
	// The agent waits for the daemon's pid file: on a loaded machine an agent that exits at
	// once can have its daemon killed before it wrote one, and the test could not look.
	const started = ` until [ -s "$PIDFILE" ]; do sleep 0.01; done;`
	tests := []struct {
		name, command string
		timeout       float64
		want          error
		wantText      string
	}{
		{name: "setsid daemon", command: daemon + started + " echo done", want: errLingering},
		{name: "double fork", command: `sh -c '` + strings.ReplaceAll(daemon, "'", `'\''`) + `';` + started + ` echo done`, want: errLingering},
		{name: "daemon of an agent that times out", command: daemon + started + " sleep 300", timeout: 0.5,
			wantText: "timed out after 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			settings := map[string]any{"command": tt.command, "env": map[string]any{"PIDFILE": pidFile}}
			if tt.timeout > 0 {
				settings["timeout_seconds"] = tt.timeout
			}
			tg, err := New(&suite.TargetConfig{Name: "detach", Dir: t.TempDir(), Settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			r := req("x", t.TempDir())
			r.Suite.BackgroundProcesses = backgroundError
			_, err = tg.Run(t.Context(), r)
			if tt.want != nil && !errors.Is(err, tt.want) || err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("err = %v, want %v %q", err, tt.want, tt.wantText)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			for deadline := time.Now().Add(5 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("daemon %d outlived its test", pid)
				}
			}
		})
	}
}

// TestAgentEnvironment: the agent and its healthcheck see the allow-listed environment and the
// target's env:, never the job's secrets. (Not parallel: it sets evalgate's own environment.)
func TestAgentEnvironment(t *testing.T) { //nolint:paralleltest // t.Setenv: it sets evalgate's own environment
	secrets := []string{"INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPENAI_API_KEY"}
	for _, k := range secrets {
		t.Setenv(k, "secret-"+k)
	}
	dir := t.TempDir()
	tg, err := New(&suite.TargetConfig{Name: "env", Dir: dir, Settings: map[string]any{
		"command":     `env > "$OUT/agent.env"; echo done`,
		"healthcheck": `env > "$OUT/health.env"`,
		"env":         map[string]any{"OUT": dir, "FROM_CONFIG": "yes"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Run(t.Context(), req("x", "")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent.env", "health.env"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		env := string(b)
		for _, k := range secrets {
			if strings.Contains(env, k) {
				t.Errorf("%s has %s", name, k)
			}
		}
		for _, want := range []string{"\nPATH=", "\nFROM_CONFIG=yes\n"} {
			if !strings.Contains("\n"+env, want) {
				t.Errorf("%s lacks %q:\n%s", name, strings.TrimSpace(want), env)
			}
		}
	}
}

// running reports whether pid is running; a zombie waiting to be reaped is not.
func running(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
